// Checks one published record against what we expect, with real DNS queries through the
// configured resolver. Outcomes are values: found, missing (or different), or a temporary DNS
// failure (SERVFAIL, timeout) that must not count against the domain.
import { Resolver } from 'node:dns/promises';
import type { DnsRecordSpec } from './records.js';

export type CheckOutcome =
  | { result: 'found' }
  | { result: 'missing'; detail: string }
  | { result: 'temporary'; detail: string };

export function createResolver(servers: string[], timeoutMs = 2000): Resolver {
  const r = new Resolver({ timeout: timeoutMs, tries: 2 });
  if (servers.length) r.setServers(servers);
  return r;
}

const MISSING_CODES = new Set(['ENOTFOUND', 'ENODATA', 'NXDOMAIN', 'ENONAME']);
const sameHost = (a: string, b: string) => a.toLowerCase().replace(/\.$/, '') === b.toLowerCase().replace(/\.$/, '');
const tags = (txt: string) =>
  new Map(
    txt
      .split(';')
      .map((t) => t.trim())
      .filter(Boolean)
      .map((t) => {
        const i = t.indexOf('=');
        return [t.slice(0, i).trim().toLowerCase(), t.slice(i + 1).replace(/\s+/g, '')] as [string, string];
      }),
  );

export async function checkRecord(spec: DnsRecordSpec, resolver: Resolver): Promise<CheckOutcome> {
  try {
    switch (spec.type) {
      case 'MX': {
        const mx = await resolver.resolveMx(spec.fqdn);
        if (mx.some((m) => sameHost(m.exchange, spec.value))) return { result: 'found' };
        return {
          result: 'missing',
          detail: `MX records point at ${mx.map((m) => m.exchange || '.').join(', ') || 'nothing'}, not ${spec.value}`,
        };
      }
      case 'CNAME': {
        const c = await resolver.resolveCname(spec.fqdn);
        if (c.some((h) => sameHost(h, spec.value))) return { result: 'found' };
        return { result: 'missing', detail: `CNAME points at ${c.join(', ')}, not ${spec.value}` };
      }
      case 'TXT': {
        const txts = (await resolver.resolveTxt(spec.fqdn)).map((chunks) => chunks.join(''));
        if (txts.some((t) => txtMatches(spec, t))) return { result: 'found' };
        return {
          result: 'missing',
          detail: txts.length ? `TXT record does not match the expected value` : 'no TXT record',
        };
      }
    }
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (MISSING_CODES.has(code)) return { result: 'missing', detail: `no ${spec.type} record at ${spec.fqdn}` };
    return { result: 'temporary', detail: `DNS lookup of ${spec.fqdn} failed: ${code || (err as Error).message}` };
  }
}

/** Whether `fqdn` publishes a TXT record equal to `value` (a domain claim's proof). */
export async function checkTxtValue(fqdn: string, value: string, resolver: Resolver): Promise<CheckOutcome> {
  try {
    const txts = (await resolver.resolveTxt(fqdn)).map((chunks) => chunks.join('').trim());
    if (txts.includes(value)) return { result: 'found' };
    return { result: 'missing', detail: `no TXT record at ${fqdn} has the value ${value}` };
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (MISSING_CODES.has(code)) return { result: 'missing', detail: `no TXT record at ${fqdn}` };
    return { result: 'temporary', detail: `DNS lookup of ${fqdn} failed: ${code || (err as Error).message}` };
  }
}

function txtMatches(spec: DnsRecordSpec, txt: string): boolean {
  switch (spec.key) {
    case 'dkim':
    case 'dkim_ed25519': {
      const want = tags(spec.value).get('p');
      const got = tags(txt);
      return Boolean(want) && got.get('p') === want && (!got.has('v') || got.get('v') === 'DKIM1');
    }
    case 'spf_txt': {
      if (!/^v=spf1(\s|$)/i.test(txt)) return false;
      const mech = spec.value.split(/\s+/)[1].toLowerCase(); // "a:<mxHost>"
      return txt
        .toLowerCase()
        .split(/\s+/)
        .some((t) => t.replace(/^[+]/, '') === mech);
    }
    case 'dmarc':
      return /^v=DMARC1(\s*;|$)/i.test(txt);
    default:
      return txt === spec.value;
  }
}
