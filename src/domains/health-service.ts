// Reads one team's domain and runs its health checks with a fresh resolver on the configured DNS
// servers (a short timeout: blocklists that do not answer must not hold the request for long).
import type { Config } from '../config/schema.js';
import { notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import { domainFindById, type DomainRow } from '../store/domains.js';
import { domainsReceivingNames } from '../store/dmarc-reports.js';
import { createResolver } from './dns-check.js';
import { HealthDns } from './health-dns.js';
import { domainHealth, type HealthReport } from './health.js';

export async function teamDomain(db: Queryable, teamId: string, id: string): Promise<DomainRow> {
  const d = isUuid(id) ? await domainFindById(db, teamId, id) : undefined;
  if (!d) throw notFound('Domain');
  return d;
}

export async function domainHealthFor(
  db: Queryable,
  config: Config,
  teamId: string,
  id: string,
): Promise<HealthReport> {
  const d = await teamDomain(db, teamId, id);
  const dns = new HealthDns(createResolver(config.dnsServers, 2500));
  return domainHealth(d, { config, dns, receivingDomains: await domainsReceivingNames(db, teamId) });
}
