// SPF record analysis for domain health (RFC 7208): syntax of every term, and the number of
// DNS-querying terms counted recursively through include: and redirect= (the limit is 10; past
// it receivers return permerror and SPF fails for all mail). It evaluates no sender address.
export type TxtLookup = (name: string) => Promise<string[] | null>; // null = no such name / no TXT

export interface SpfAnalysis {
  record: string | null;
  errors: string[]; // each makes the record permerror
  warnings: string[];
  lookups: number;
  all: string | null; // the qualifier+all term, e.g. "~all", or null when absent
}

const MAX_LOOKUPS = 10;
const LOOKUP_TERMS = new Set(['include', 'a', 'mx', 'ptr', 'exists']);
const MECHANISMS = new Set(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists']);
const IP4 = /^(\d{1,3})(\.\d{1,3}){3}(\/\d{1,2})?$/;
const IP6 = /^[0-9a-f:.]+(\/\d{1,3})?$/i;

export const isSpf = (txt: string) => /^v=spf1(\s|$)/i.test(txt.trim());

/** Analyses the SPF record of `domain`, following include: and redirect= (at most 10 levels deep). */
export async function analyzeSpf(domain: string, txt: TxtLookup): Promise<SpfAnalysis> {
  const out: SpfAnalysis = { record: null, errors: [], warnings: [], lookups: 0, all: null };
  const records = ((await txt(domain)) ?? []).filter(isSpf);
  if (records.length === 0) return out;
  if (records.length > 1)
    out.errors.push(`${domain} publishes ${records.length} SPF records; receivers treat that as permerror`);
  out.record = records[0];
  await walk(domain, records[0], out, 0, new Set([domain.toLowerCase()]), txt, true);
  if (out.lookups > MAX_LOOKUPS)
    out.errors.push(
      `${out.lookups} DNS lookups (include, a, mx, ptr, exists, redirect) counted recursively; the limit is ${MAX_LOOKUPS}`,
    );
  return out;
}

async function walk(
  domain: string,
  record: string,
  out: SpfAnalysis,
  depth: number,
  seen: Set<string>,
  txt: TxtLookup,
  top: boolean,
): Promise<void> {
  const terms = record.trim().split(/\s+/).slice(1);
  let redirect: string | null = null;
  let hasAll = false;
  const where = top ? '' : ` (in ${domain})`;
  for (const term of terms) {
    const mod = /^([a-z][a-z0-9_.-]*)=(.*)$/i.exec(term);
    if (mod) {
      const name = mod[1].toLowerCase();
      if (name === 'redirect') {
        if (redirect !== null) out.errors.push(`more than one redirect= modifier${where}`);
        redirect = mod[2];
        out.lookups++;
      } else if (name === 'exp' && !mod[2]) out.errors.push(`empty exp= modifier${where}`);
      continue; // unknown modifiers are ignored by receivers (RFC 7208 6)
    }
    const m = /^([+\-~?]?)([a-z0-9]+)(?::(.*?))?(\/\/?\d+)?$/i.exec(term);
    const mech = m?.[2].toLowerCase();
    if (!m || !mech || !MECHANISMS.has(mech)) {
      out.errors.push(`unknown term "${term}"${where}`);
      continue;
    }
    const arg = m[3];
    if (LOOKUP_TERMS.has(mech)) out.lookups++;
    switch (mech) {
      case 'all':
        hasAll = true;
        if (arg !== undefined || m[4]) out.errors.push(`"${term}" takes no argument${where}`);
        if (top) out.all = `${m[1] || '+'}all`;
        break;
      case 'ip4':
        if (!arg || !IP4.test(arg + (m[4] ?? '')) || arg.split('.').some((o) => Number(o) > 255))
          out.errors.push(`"${term}" is not a valid ip4: mechanism${where}`);
        break;
      case 'ip6':
        if (!arg || !IP6.test(term.slice(term.indexOf(':') + 1)))
          out.errors.push(`"${term}" is not a valid ip6: mechanism${where}`);
        break;
      case 'ptr':
        out.warnings.push(
          `"${term}" uses ptr, which RFC 7208 says not to use (slow, and some receivers ignore it)${where}`,
        );
        break;
      case 'include':
      case 'exists':
        if (!arg) {
          out.errors.push(`"${term}" needs a domain${where}`);
          break;
        }
        if (mech === 'include') await follow(arg, `include:${arg}`, out, depth, seen, txt);
        break;
    }
  }
  if (redirect !== null) {
    if (hasAll) out.warnings.push(`redirect=${redirect} is ignored because the record has an "all" term${where}`);
    else await follow(redirect, `redirect=${redirect}`, out, depth, seen, txt, top);
  }
}

async function follow(
  target: string,
  label: string,
  out: SpfAnalysis,
  depth: number,
  seen: Set<string>,
  txt: TxtLookup,
  asTop = false,
): Promise<void> {
  if (target.includes('%')) return; // a macro: expands per message, cannot be followed here
  const key = target.toLowerCase().replace(/\.$/, '');
  if (seen.has(key)) {
    out.errors.push(`${label} loops back to a record already included`);
    return;
  }
  if (depth >= MAX_LOOKUPS || out.lookups > MAX_LOOKUPS) return; // already over the limit: counting further adds nothing
  const records = ((await txt(key)) ?? []).filter(isSpf);
  if (records.length !== 1) {
    out.errors.push(
      records.length
        ? `${label}: ${key} publishes ${records.length} SPF records`
        : `${label}: ${key} publishes no SPF record (permerror)`,
    );
    return;
  }
  await walk(key, records[0], out, depth + 1, new Set([...seen, key]), txt, asTop);
}
