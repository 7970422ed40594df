// Domain health (GET /domains/:id/health, a Mailroom extension): what a receiver will think of
// mail from this domain, read live from DNS through the configured resolver. SPF (syntax, the
// 10-lookup limit) at the return path and at the domain, DMARC, DKIM, MTA-STS, TLS-RPT, reverse
// DNS of the outbound addresses against the HELO name, and DNS blocklists. Changes nothing.
// In capture mode it reads nothing and says so (status not_checked, a notice).
import type { Config } from '../config/schema.js';
import type { DomainRow } from '../store/domains.js';
import { HealthDns, dnsblQuery, reverseDns, type Listing } from './health-dns.js';
import {
  check,
  dkimCheck,
  dmarcChecks,
  fetchMtaStsPolicy,
  mtaStsCheck,
  tlsRptCheck,
  type HealthCheck,
  type PolicyFetch,
} from './health-policies.js';
import { DKIM_ED25519_SELECTOR } from './records.js';
import { analyzeSpf } from './spf.js';

export interface HealthReport {
  object: 'domain_health';
  domain_id: string;
  name: string;
  /** not_checked: capture mode, where no receiver ever sees the domain (see `notice`) */
  status: 'pass' | 'warn' | 'fail' | 'not_checked';
  checked_at: string;
  /** why nothing was checked, or null */
  notice: string | null;
  checks: HealthCheck[];
}

// In capture mode nothing leaves the machine and domains verify without DNS (service.ts): judging
// DNS here would contradict the domain page and advise SPF for an MX host no receiver will meet.
const CAPTURE_NOTICE =
  'Capture mode (MAILROOM_DELIVERY_MODE=capture): nothing leaves this machine, so no receiving server ' +
  'ever sees this domain, and its DNS is not checked. Publish its records and check again after switching to mx or relay.';

export interface HealthContext {
  config: Config;
  dns: HealthDns;
  /** the team's receiving domains: where a DMARC rua= address is seen by Mailroom */
  receivingDomains: string[];
  /** how the MTA-STS policy file is fetched (default: HTTPS on port 443 under the SSRF policy) */
  fetchMtaStsPolicy?: PolicyFetch;
}

/** Runs one check; a DNS failure (SERVFAIL, timeout) is a warning that says so, never a false fail. */
async function guarded(id: string, run: () => Promise<HealthCheck | HealthCheck[]>): Promise<HealthCheck[]> {
  try {
    const out = await run();
    return Array.isArray(out) ? out : [out];
  } catch (err) {
    const code = (err as { code?: string }).code;
    return [
      check(
        id,
        'warn',
        `Could not check: DNS lookup failed (${code ?? (err as Error).message}).`,
        'Try again later; if it persists, check MAILROOM_DNS_SERVERS.',
      ),
    ];
  }
}

async function spfCheck(id: string, host: string, dns: HealthDns, required: string | null): Promise<HealthCheck> {
  const spf = await analyzeSpf(host, (n) => dns.txt(n));
  if (!spf.record) {
    return required
      ? check(
          id,
          'fail',
          `No SPF record at ${host}: the return path is not authorized, so SPF fails for every message.`,
          `Publish a TXT record at ${host}: "${required}".`,
        )
      : check(
          id,
          'warn',
          `No SPF record at ${host}: receivers cannot tell which servers may use ${host} in the envelope sender (mail from Mailroom uses the return path, so it is not affected).`,
          `Publish "v=spf1 -all" at ${host} if nothing sends with it as envelope sender, or list the servers that do.`,
        );
  }
  const lookups = `${spf.lookups} of 10 DNS lookups`;
  if (spf.errors.length)
    return check(
      id,
      'fail',
      `SPF at ${host} is invalid (permerror): ${spf.errors.join('; ')}.`,
      spf.lookups > 10
        ? 'Remove include: entries you no longer use, or replace them with the ip4:/ip6: ranges they stand for.'
        : 'Fix the record; receivers treat an invalid SPF record as a failure.',
    );
  const mech = required?.split(/\s+/)[1];
  if (
    mech &&
    !spf.record
      .toLowerCase()
      .split(/\s+/)
      .some((t) => t.replace(/^\+/, '') === mech)
  ) {
    return check(
      id,
      'fail',
      `SPF at ${host} does not include ${mech}: Mailroom's servers are not authorized.`,
      `Publish "${required}" at ${host}.`,
    );
  }
  if (spf.all === '+all' || spf.all === '?all')
    return check(
      id,
      'fail',
      `SPF at ${host} ends in ${spf.all}: it authorizes every server on the internet.`,
      'End the record with ~all or -all.',
    );
  if (spf.warnings.length || !spf.all)
    return check(
      id,
      'warn',
      `SPF at ${host} is valid (${lookups}), but: ${[...spf.warnings, ...(spf.all ? [] : ['it has no all term, so unlisted servers get neutral'])].join('; ')}.`,
      'End the record with ~all or -all and avoid ptr.',
    );
  if (spf.lookups >= 8)
    return check(
      id,
      'warn',
      `SPF at ${host} uses ${lookups}: one more include may break it.`,
      'Flatten include: entries you control into ip4:/ip6: ranges.',
    );
  return check(id, 'pass', `SPF at ${host} is valid: ${lookups}, ends in ${spf.all}.`);
}

/** The addresses mail from a domain in `region` leaves from, and the name they must resolve to. */
function egressOf(config: Config, region: string): { addresses: string[]; helo: string; relayed: boolean } {
  const e = config.regionEgress[region as keyof Config['regionEgress']] ?? {};
  const relayed = Boolean(e.relayUrl) || config.deliveryMode !== 'mx';
  return {
    addresses: e.sourceAddress ? [e.sourceAddress] : [...config.outboundAddresses],
    helo: e.heloName ?? config.heloName,
    relayed,
  };
}

async function reverseDnsCheck(ctx: HealthContext, region: string): Promise<HealthCheck> {
  const { addresses, helo, relayed } = egressOf(ctx.config, region);
  if (relayed)
    return check(
      'reverse_dns',
      'pass',
      `Not applicable: mail for region ${region} leaves through a relay, whose addresses are the relay's concern.`,
    );
  if (!addresses.length)
    return check(
      'reverse_dns',
      'warn',
      'Not checked: the outbound addresses are unknown.',
      'Set MAILROOM_OUTBOUND_ADDRESSES (or sourceAddress in MAILROOM_REGION_EGRESS) to the public addresses mail leaves from.',
    );
  const results = await Promise.all(addresses.map((ip) => reverseDns(ctx.dns, ip, helo)));
  const bad = results.filter((r) => !r.matchesHelo || !r.forwardConfirmed);
  if (!bad.length)
    return check(
      'reverse_dns',
      'pass',
      `${addresses.join(', ')} resolve${addresses.length > 1 ? '' : 's'} to ${helo} and back (forward-confirmed), matching the HELO name.`,
    );
  const why = bad.map((r) =>
    !r.ptr.length
      ? `${r.ip} has no PTR record`
      : !r.matchesHelo
        ? `${r.ip} points at ${r.ptr.join(', ')}, not the HELO name ${helo}`
        : `${helo} does not resolve back to ${r.ip}`,
  );
  return check(
    'reverse_dns',
    'fail',
    `${why.join('; ')}. Gmail, Yahoo and Outlook reject or junk mail from addresses without forward-confirmed reverse DNS.`,
    `Ask the owner of each address (your hosting provider) to set its PTR record to ${helo}, and publish an A/AAAA record for ${helo} with that address.`,
  );
}

function blocklistCheck(id: string, what: string, listings: Listing[], zones: string[]): HealthCheck {
  if (!zones.length)
    return check(
      id,
      'pass',
      `No blocklist zones configured (${id === 'blocklist_ips' ? 'MAILROOM_DNSBL_ZONES' : 'MAILROOM_DOMAIN_DNSBL_ZONES'}=none).`,
    );
  const listed = listings.filter((l): l is Extract<Listing, { listed: true }> => l.listed === true);
  const failed = listings.filter((l): l is Extract<Listing, { listed: null }> => l.listed === null);
  if (listed.length) {
    return check(
      id,
      'fail',
      `Listed: ${listed.map((l) => `${l.target} on ${l.zone} (${l.codes.join(', ')}${l.reason ? `: ${l.reason}` : ''})`).join('; ')}.`,
      "Find and stop the cause (a compromised account, a bought list, a spike of complaints), then request removal on each blocklist's website.",
    );
  }
  if (failed.length)
    return check(
      id,
      'warn',
      `Not listed where the blocklists answered; ${failed.map((l) => `${l.zone}: ${l.error}`).join('; ')}.`,
      'Some blocklists refuse queries from public resolvers: point MAILROOM_DNS_SERVERS at your own recursive resolver.',
    );
  return check(id, 'pass', `${what} not listed on ${zones.join(', ')}.`);
}

const RANK = { pass: 0, warn: 1, fail: 2 } as const;

export async function domainHealth(d: DomainRow, ctx: HealthContext): Promise<HealthReport> {
  const { config, dns } = ctx;
  const head = {
    object: 'domain_health' as const,
    domain_id: d.id,
    name: d.name,
    checked_at: new Date().toISOString(),
  };
  if (config.deliveryMode === 'capture') return { ...head, status: 'not_checked', notice: CAPTURE_NOTICE, checks: [] };
  const jobs: Promise<HealthCheck[]>[] = [];
  if (d.sending) {
    const returnPath = `${d.custom_return_path}.${d.name}`;
    jobs.push(
      guarded('spf_return_path', () => spfCheck('spf_return_path', returnPath, dns, `v=spf1 a:${config.mxHost} ~all`)),
      guarded('spf', () => spfCheck('spf', d.name, dns, null)),
      guarded('dkim', () => dkimCheck('dkim', `${d.dkim_selector}._domainkey.${d.name}`, d.dkim_public_key, dns)),
      guarded('reverse_dns', () => reverseDnsCheck(ctx, d.region)),
    );
    if (d.dkim_ed25519_public_key)
      jobs.push(
        guarded('dkim_ed25519', () =>
          dkimCheck('dkim_ed25519', `${DKIM_ED25519_SELECTOR}._domainkey.${d.name}`, d.dkim_ed25519_public_key!, dns),
        ),
      );
    const { addresses, relayed } = egressOf(config, d.region);
    if (!relayed && addresses.length) {
      jobs.push(
        guarded('blocklist_ips', async () =>
          blocklistCheck(
            'blocklist_ips',
            addresses.join(', '),
            await Promise.all(addresses.flatMap((ip) => config.dnsblZones.map((z) => dnsblQuery(dns, ip, z)))),
            config.dnsblZones,
          ),
        ),
      );
    }
  }
  jobs.push(
    guarded('dmarc_policy', () => dmarcChecks(d.name, dns, ctx.receivingDomains)),
    guarded('mta_sts', () =>
      mtaStsCheck(
        d.name,
        dns,
        ctx.fetchMtaStsPolicy ??
          ((name, r) => fetchMtaStsPolicy(name, r, { allowPrivate: config.allowPrivateNetworks })),
      ),
    ),
    guarded('tls_rpt', () => tlsRptCheck(d.name, dns)),
    guarded('blocklist_domain', async () =>
      blocklistCheck(
        'blocklist_domain',
        d.name,
        await Promise.all(config.domainDnsblZones.map((z) => dnsblQuery(dns, d.name, z))),
        config.domainDnsblZones,
      ),
    ),
  );
  const checks = (await Promise.all(jobs)).flat();
  const status = checks.reduce<'pass' | 'warn' | 'fail'>(
    (worst, c) => (RANK[c.status] > RANK[worst] ? c.status : worst),
    'pass',
  );
  return { ...head, status, notice: null, checks };
}
