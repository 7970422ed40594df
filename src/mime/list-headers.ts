// One recipient's copy of a list email: the stored message with its List-Id / List-Unsubscribe /
// List-Unsubscribe-Post headers replaced by that recipient's (a caller's own are dropped: two
// List-Unsubscribe fields would leave receivers guessing). Only the header block is copied; the
// body is the same bytes. DKIM signing comes after, so the signature covers these headers.
const OURS = new Set(['list-id', 'list-unsubscribe', 'list-unsubscribe-post']);

export function withListHeaders(raw: Buffer, headers: [string, string][]): Buffer {
  let end = raw.indexOf('\r\n\r\n');
  if (end < 0) end = raw.length;
  const lines = raw.subarray(0, end).toString('binary').split('\r\n');
  const kept: string[] = [];
  let dropping = false;
  for (const line of lines) {
    if (/^[ \t]/.test(line)) {
      // a folded continuation belongs to the field above
      if (!dropping) kept.push(line);
      continue;
    }
    dropping = OURS.has(line.slice(0, line.indexOf(':')).trim().toLowerCase());
    if (!dropping) kept.push(line);
  }
  for (const [name, value] of headers) kept.push(`${name}: ${value}`);
  const head = Buffer.from(kept.join('\r\n'), 'binary');
  return Buffer.concat([head, end < raw.length ? raw.subarray(end) : Buffer.from('\r\n\r\n')]);
}
