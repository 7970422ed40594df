// The published-policy checks of domain health: DMARC (policy strength, pct, rua and its
// cross-domain authorization), DKIM key size and match, MTA-STS (record and, when reachable, the
// policy file) and TLS-RPT. Each returns a HealthCheck; DNS failures become "warn: could not look".
import https from 'node:https';
import { createPublicKey } from 'node:crypto';
import { blockedAddressReason } from '../lib/network-guard.js';
import type { HealthDns } from './health-dns.js';

export type HealthStatus = 'pass' | 'warn' | 'fail';
export interface HealthCheck {
  id: string;
  status: HealthStatus;
  detail: string;
  fix: string | null;
}

export const check = (id: string, status: HealthStatus, detail: string, fix: string | null = null): HealthCheck => ({
  id,
  status,
  detail,
  fix,
});

/** `k=v; k=v` tag lists (DMARC, DKIM, TLS-RPT, MTA-STS records): lowercase keys, trimmed values. */
export function tagList(txt: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of txt.split(';')) {
    const i = part.indexOf('=');
    if (i > 0) out.set(part.slice(0, i).trim().toLowerCase(), part.slice(i + 1).trim());
  }
  return out;
}

const sameOrg = (a: string, b: string) => a === b || a.endsWith(`.${b}`) || b.endsWith(`.${a}`);

const isDmarc = (t: string) => /^v\s*=\s*DMARC1/i.test(t);

/** The DMARC record that applies to `domain`: its own, or the nearest parent's (the DMARCbis tree walk; RFC 7489's organizational domain is one of those parents). */
async function findDmarc(domain: string, dns: HealthDns): Promise<{ at: string; records: string[] }> {
  const labels = domain.split('.');
  for (let i = 0; i <= labels.length - 2 && i < 8; i++) {
    const at = labels.slice(i).join('.');
    const records = ((await dns.txt(`_dmarc.${at}`)) ?? []).filter(isDmarc);
    if (records.length) return { at, records };
  }
  return { at: domain, records: [] };
}

export async function dmarcChecks(domain: string, dns: HealthDns, receivingDomains: string[]): Promise<HealthCheck[]> {
  const { at, records } = await findDmarc(domain, dns);
  const publish = `Publish a TXT record at _dmarc.${domain}: "v=DMARC1; p=none; rua=mailto:dmarc@${receivingDomains[0] ?? domain}", read the reports for a few weeks, then move to p=quarantine and p=reject.`;
  if (records.length === 0)
    return [
      check(
        'dmarc_policy',
        'fail',
        `No DMARC record at _dmarc.${domain} or a parent domain: receivers apply no policy to mail forged as ${domain}, and Gmail and Yahoo require one from bulk senders.`,
        publish,
      ),
      check('dmarc_rua', 'warn', 'No DMARC record, so no aggregate reports are sent.', publish),
    ];
  if (records.length > 1)
    return [
      check(
        'dmarc_policy',
        'fail',
        `${records.length} DMARC records at _dmarc.${at}: receivers ignore them all.`,
        'Keep exactly one TXT record starting with v=DMARC1.',
      ),
      check(
        'dmarc_rua',
        'warn',
        'The DMARC record is ambiguous; no reports can be relied on.',
        'Keep exactly one DMARC record.',
      ),
    ];
  const tags = tagList(records[0]);
  // A parent's record applies its subdomain policy (sp=) when it has one.
  const inherited = at !== domain;
  const pTag = inherited && tags.has('sp') ? 'sp' : 'p';
  const p = (tags.get(pTag) ?? '').toLowerCase();
  const pct = tags.has('pct') ? Number(tags.get('pct')) : 100;
  const from = inherited ? `Inherited from _dmarc.${at}: ` : '';
  let policy: HealthCheck;
  if (!['none', 'quarantine', 'reject'].includes(p))
    policy = check(
      'dmarc_policy',
      'fail',
      `${from}the DMARC record has no valid ${pTag}= tag (found "${tags.get(pTag) ?? ''}"): receivers treat it as invalid.`,
      `Set ${pTag}=none, quarantine or reject in _dmarc.${at}.`,
    );
  else if (!Number.isInteger(pct) || pct < 0 || pct > 100)
    policy = check(
      'dmarc_policy',
      'fail',
      `${from}pct=${tags.get('pct')} is not a whole number from 0 to 100.`,
      'Remove pct= or set it to 100.',
    );
  else if (p === 'none')
    policy = check(
      'dmarc_policy',
      'warn',
      `${from}${pTag}=none: monitoring only. Mail that fails DMARC is still delivered, so anyone can send as this domain.`,
      `Once the reports show all your legitimate mail passing, set ${pTag}=quarantine, then ${pTag}=reject, at _dmarc.${at}.`,
    );
  else if (pct < 100)
    policy = check(
      'dmarc_policy',
      'warn',
      `${from}${pTag}=${p} applies to only ${pct}% of failing mail (pct=${pct}).`,
      'Raise pct to 100 (or remove it) once the reports look clean.',
    );
  else
    policy = check(
      'dmarc_policy',
      'pass',
      `${from}${pTag}=${p}${!inherited && tags.has('sp') ? `, sp=${tags.get('sp')}` : ''}: mail failing DMARC is ${p === 'reject' ? 'rejected' : 'sent to spam'}.`,
      p === 'quarantine' ? 'Consider p=reject once you are confident.' : null,
    );

  const rua = (tags.get('rua') ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter(Boolean);
  if (!rua.length)
    return [
      policy,
      check(
        'dmarc_rua',
        'warn',
        'No rua= tag: receivers send no aggregate reports, so you cannot see who sends as this domain.',
        `Add rua=mailto:dmarc@${receivingDomains[0] ?? '<a receiving domain>'} to the DMARC record; Mailroom stores the reports it receives there (see GET /domains/:id/dmarc-reports).`,
      ),
    ];
  const hosts = rua.map((u) => /^mailto:[^@]+@([^!,\s]+)/i.exec(u)?.[1]?.toLowerCase().replace(/\.$/, ''));
  if (hosts.some((h) => !h))
    return [
      policy,
      check(
        'dmarc_rua',
        'fail',
        `rua=${tags.get('rua')} contains an address that is not a mailto: URI.`,
        'Write each report address as mailto:name@domain, comma separated.',
      ),
    ];
  const here = hosts.filter((h) => receivingDomains.includes(h!));
  const unauthorized: string[] = [];
  for (const h of hosts as string[]) {
    if (sameOrg(h, at)) continue;
    const auth = await dns.txt(`${at}._report._dmarc.${h}`);
    if (!(auth ?? []).some(isDmarc)) unauthorized.push(h);
  }
  if (unauthorized.length) {
    return [
      policy,
      check(
        'dmarc_rua',
        'warn',
        `Reports go to ${unauthorized.join(', ')}, which does not authorize them: receivers drop reports for a domain the report address's domain did not agree to take.`,
        unauthorized.map((h) => `Publish a TXT record "v=DMARC1" at ${at}._report._dmarc.${h}.`).join(' '),
      ),
    ];
  }
  const where = here.length
    ? ` Mailroom receives and stores the reports sent to ${here.join(', ')}.`
    : ' None of them is a receiving domain of this team, so Mailroom does not see the reports.';
  return [
    policy,
    check(
      'dmarc_rua',
      'pass',
      `Aggregate reports go to ${rua.join(', ')}.${where}`,
      here.length ? null : 'To see the reports in Mailroom, add a receiving domain and list an address on it in rua=.',
    ),
  ];
}

/** DKIM: the published key matches the one Mailroom signs with, and its size (RSA: 2048 bits recommended). */
export async function dkimCheck(id: string, fqdn: string, expectedKey: string, dns: HealthDns): Promise<HealthCheck> {
  const txts = ((await dns.txt(fqdn)) ?? []).filter((t) => tagList(t).has('p'));
  const fix = `Publish the DKIM record shown on the domain's page at ${fqdn}.`;
  if (!txts.length)
    return check(id, 'fail', `No DKIM key at ${fqdn}: receivers cannot verify Mailroom's signatures.`, fix);
  const tags = tagList(txts[0]);
  const p = (tags.get('p') ?? '').replace(/\s+/g, '');
  if (!p) return check(id, 'fail', `The DKIM record at ${fqdn} is revoked (empty p=).`, fix);
  if (p !== expectedKey)
    return check(id, 'fail', `The key published at ${fqdn} is not the one Mailroom signs with: signatures fail.`, fix);
  const k = (tags.get('k') ?? 'rsa').toLowerCase();
  if (k === 'ed25519')
    return check(id, 'pass', 'Ed25519 key (256 bits, equivalent to RSA-3072) published and matching.');
  try {
    const bits =
      createPublicKey({ key: Buffer.from(p, 'base64'), format: 'der', type: 'spki' }).asymmetricKeyDetails
        ?.modulusLength ?? 0;
    if (bits < 1024)
      return check(
        id,
        'fail',
        `RSA key of ${bits} bits: receivers reject keys under 1024 bits.`,
        'Use a 2048-bit key.',
      );
    if (bits < 2048)
      return check(
        id,
        'warn',
        `RSA key of ${bits} bits: 1024-bit keys are considered weak; 2048 is the norm.`,
        'Use a 2048-bit key.',
      );
    return check(id, 'pass', `RSA key of ${bits} bits, published and matching.`);
  } catch {
    return check(id, 'fail', `The key at ${fqdn} is not a valid RSA public key.`, fix);
  }
}

export async function tlsRptCheck(domain: string, dns: HealthDns): Promise<HealthCheck> {
  const recs = ((await dns.txt(`_smtp._tls.${domain}`)) ?? []).filter((t) => /^v\s*=\s*TLSRPTv1/i.test(t));
  const fix = `Publish a TXT record at _smtp._tls.${domain}: "v=TLSRPTv1; rua=mailto:tls-reports@${domain}".`;
  if (!recs.length)
    return check('tls_rpt', 'warn', 'No TLS-RPT record: senders do not tell you when TLS to your MX fails.', fix);
  if (recs.length > 1)
    return check('tls_rpt', 'fail', `${recs.length} TLS-RPT records: senders ignore them all.`, 'Keep exactly one.');
  const rua = tagList(recs[0]).get('rua');
  if (!rua) return check('tls_rpt', 'fail', 'The TLS-RPT record has no rua= tag.', fix);
  return check('tls_rpt', 'pass', `TLS reports go to ${rua}.`);
}

export interface MtaStsPolicy {
  version?: string;
  mode?: string;
  mx: string[];
  maxAge?: number;
}

export function parseMtaStsPolicy(text: string): MtaStsPolicy {
  const out: MtaStsPolicy = { mx: [] };
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i <= 0) continue;
    const key = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    if (key === 'version') out.version = value;
    else if (key === 'mode') out.mode = value.toLowerCase();
    else if (key === 'mx') out.mx.push(value);
    else if (key === 'max_age') out.maxAge = Number(value);
  }
  return out;
}

export interface PolicyFetchOptions {
  /** MAILROOM_ALLOW_PRIVATE_NETWORKS: otherwise a policy host on a private or loopback address is refused (SSRF) */
  allowPrivate: boolean;
  timeoutMs?: number;
  port?: number; // tests: the policy server's port (443 in the real world)
  ca?: string; // tests: the policy server's self-signed certificate
}
export type PolicyFetch = (domain: string, dns: HealthDns) => Promise<string>;

/**
 * GET https://mta-sts.<domain>/.well-known/mta-sts.txt (RFC 8461 3.3: certificate verified, no
 * redirects), the host resolved through our resolver and checked against the SSRF policy; the
 * socket connects to exactly the address checked.
 */
export function fetchMtaStsPolicy(domain: string, dns: HealthDns, opts: PolicyFetchOptions): Promise<string> {
  const timeoutMs = opts.timeoutMs ?? 3000;
  type LookupCb = (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void;
  const lookup = (host: string, o: { all?: boolean }, cb: LookupCb) => {
    dns.a(host).then(
      (a) => {
        if (!a?.length) return cb(Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' }), '');
        const why = opts.allowPrivate ? null : blockedAddressReason(a[0]);
        if (why) return cb(new Error(`${host} resolves to a ${why} address (${a[0]}), which is not allowed`), '');
        if (o.all) cb(null, [{ address: a[0], family: 4 }]);
        else cb(null, a[0], 4);
      },
      (e: Error) => cb(e, ''),
    );
  };
  return new Promise((resolve, reject) => {
    const req = https.get(
      {
        host: `mta-sts.${domain}`,
        port: opts.port ?? 443,
        path: '/.well-known/mta-sts.txt',
        timeout: timeoutMs,
        headers: { accept: 'text/plain' },
        lookup: lookup as never,
        ca: opts.ca,
        agent: false,
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return reject(new Error(`HTTP ${res.statusCode}`));
        }
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
          if (body.length > 64 * 1024) req.destroy(new Error('policy larger than 64 KB'));
        });
        res.on('end', () => resolve(body));
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

export async function mtaStsCheck(domain: string, dns: HealthDns, fetchPolicy: PolicyFetch): Promise<HealthCheck> {
  const recs = ((await dns.txt(`_mta-sts.${domain}`)) ?? []).filter((t) => /^v\s*=\s*STSv1/i.test(t));
  if (!recs.length)
    return check(
      'mta_sts',
      'warn',
      'No MTA-STS record: senders may deliver mail to this domain without TLS when an attacker strips STARTTLS.',
      `Publish a TXT record at _mta-sts.${domain} ("v=STSv1; id=<date>") and serve a policy at https://mta-sts.${domain}/.well-known/mta-sts.txt.`,
    );
  if (recs.length > 1)
    return check('mta_sts', 'fail', `${recs.length} MTA-STS records: senders ignore them all.`, 'Keep exactly one.');
  if (!tagList(recs[0]).get('id'))
    return check(
      'mta_sts',
      'fail',
      'The MTA-STS record has no id= tag.',
      'Add id=<a value you change with each policy change>.',
    );
  let policy: MtaStsPolicy;
  try {
    policy = parseMtaStsPolicy(await fetchPolicy(domain, dns));
  } catch (err) {
    return check(
      'mta_sts',
      'warn',
      `The MTA-STS record is published, but the policy at https://mta-sts.${domain}/.well-known/mta-sts.txt could not be read: ${(err as Error).message}.`,
      `Serve the policy over HTTPS with a valid certificate for mta-sts.${domain}.`,
    );
  }
  if (policy.version !== 'STSv1' || !policy.mode || !policy.mx.length || !Number.isFinite(policy.maxAge))
    return check(
      'mta_sts',
      'fail',
      'The MTA-STS policy lacks version: STSv1, mode, mx or max_age.',
      'Fix the policy file (RFC 8461 section 3.2).',
    );
  if (policy.mode !== 'enforce')
    return check(
      'mta_sts',
      'warn',
      `MTA-STS policy in mode ${policy.mode}: senders report TLS failures but still deliver.`,
      'Switch to mode: enforce once the TLS reports are clean.',
    );
  return check('mta_sts', 'pass', `MTA-STS enforced for ${policy.mx.join(', ')} (max_age ${policy.maxAge}).`);
}
