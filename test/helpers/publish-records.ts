// Publishes a domain's records (as returned by POST /domains or GET /domains/:id) into the fake
// DNS server, as a domain owner would at their DNS host; `except` leaves some out.
import type { FakeDns } from './fake-dns.js';
import type { RecordState } from '../../src/store/domains.js';

export interface WireRecord {
  record: string;
  name: string;
  type: string;
  value: string;
  priority?: number;
  ttl: string;
  status: RecordState;
}

export const recordFqdn = (domain: string, r: WireRecord) =>
  r.name === domain || r.name === '@' ? domain : `${r.name}.${domain}`;

export function publishRecords(
  dns: FakeDns,
  domain: string,
  records: WireRecord[],
  except: (r: WireRecord) => boolean = () => false,
): void {
  const byName = new Map<string, WireRecord[]>();
  for (const r of records) {
    if (except(r)) continue;
    const k = `${recordFqdn(domain, r)}|${r.type}`;
    byName.set(k, [...(byName.get(k) ?? []), r]);
  }
  for (const [k, rs] of byName) {
    const [fqdn, type] = k.split('|');
    if (type === 'MX')
      dns.set(
        fqdn,
        'MX',
        rs.map((r) => ({ exchange: r.value, priority: r.priority ?? 10 })),
      );
    else if (type === 'TXT')
      dns.set(
        fqdn,
        'TXT',
        rs.map((r) => r.value),
      );
    else if (type === 'CNAME')
      dns.set(
        fqdn,
        'CNAME',
        rs.map((r) => r.value),
      );
  }
}

export function unpublishRecords(dns: FakeDns, domain: string, records: WireRecord[]): void {
  for (const r of records) dns.remove(recordFqdn(domain, r), r.type as never);
}
