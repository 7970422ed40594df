// What the browser learns from a CSV before uploading it: the header's column names (to offer a
// column mapping) and about how many data rows it has (for the progress bar). The server parses
// the file for real; quoted line breaks make the row count an estimate.

/** The fields of the first record of `text` (RFC 4180 quoting; a leading byte-order mark dropped). */
export function firstRecord(text: string): string[] {
  const s = text.replace(/^\uFEFF/, '');
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (quoted) {
      if (ch === '"' && s[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else if (ch === '\n' || ch === '\r') break;
    else cur += ch;
  }
  out.push(cur);
  return out.map((c) => c.trim()).filter((c, i, all) => c !== '' || i < all.length - 1);
}

/** The header's columns, read from the first 64 KB. */
export async function csvColumns(file: File): Promise<string[]> {
  return firstRecord(await file.slice(0, 64 * 1024).text());
}

/** About how many data rows the file has: its line breaks, less the header (read as a stream, in chunks). */
export async function csvRowEstimate(file: File): Promise<number> {
  const reader = file.stream().getReader();
  let lines = 0;
  let last = 10;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    for (let i = 0; i < value.length; i++) if (value[i] === 10) lines++;
    if (value.length) last = value[value.length - 1];
  }
  if (last !== 10 && file.size > 0) lines++;
  return Math.max(0, lines - 1);
}

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
const ALIASES: Record<string, string[]> = {
  email: ['email', 'emailaddress', 'mail'],
  first_name: ['firstname', 'first', 'givenname'],
  last_name: ['lastname', 'last', 'surname', 'familyname'],
  unsubscribed: ['unsubscribed', 'optedout', 'unsubscribe'],
};

/** The column that most likely holds `field` (a contact field or a property key), or ''. */
export function guessColumn(field: string, columns: string[]): string {
  const names = ALIASES[field] ?? [norm(field)];
  return columns.find((c) => names.includes(norm(c))) ?? '';
}
