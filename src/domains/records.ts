// The DNS records a domain owner publishes, derived from the domain and this service's host
// names (never stored: change MAILROOM_MX_HOST and the records follow). Field order and names
// follow Resend's record objects (resend-compat.md 5.2).
import type { DomainRow, RecordState } from '../store/domains.js';

export type RecordKey = 'dkim' | 'dkim_ed25519' | 'spf_mx' | 'spf_txt' | 'dmarc' | 'receiving_mx' | 'tracking';

/** The Ed25519 key's own selector: receivers that do not know Ed25519 ignore its signature. */
export const DKIM_ED25519_SELECTOR = 'mailroom-ed25519';

export interface DnsRecordSpec {
  key: RecordKey;
  record: 'DKIM' | 'SPF' | 'DMARC' | 'Receiving' | 'Tracking';
  name: string; // relative to the domain, as the user types it at their DNS host
  fqdn: string;
  type: 'TXT' | 'MX' | 'CNAME';
  value: string;
  priority?: number;
  /** needed for which capability; informational records (DMARC) are needed for none */
  requiredFor: 'sending' | 'receiving' | 'tracking' | null;
}

export interface Hosts {
  mxHost: string; // MX target for return paths and receiving, and the SPF a: mechanism
  trackingHost: string; // CNAME target of the tracking subdomain
}

export const dkimTxtValue = (publicKeyB64: string, algorithm: string) =>
  `v=DKIM1; k=${algorithm === 'ed25519' ? 'ed25519' : 'rsa'}; p=${publicKeyB64}`;
export const spfValue = (mxHost: string) => `v=spf1 a:${mxHost} ~all`;
export const DMARC_VALUE = 'v=DMARC1; p=none;';

type RecordSource = Pick<
  DomainRow,
  | 'name'
  | 'custom_return_path'
  | 'dkim_selector'
  | 'dkim_public_key'
  | 'dkim_algorithm'
  | 'dkim_ed25519_public_key'
  | 'sending'
  | 'receiving'
  | 'tracking_subdomain'
>;

export function domainRecords(d: RecordSource, hosts: Hosts): DnsRecordSpec[] {
  const fq = (rel: string) => `${rel}.${d.name}`;
  const out: DnsRecordSpec[] = [];
  if (d.sending) {
    out.push(
      {
        key: 'dkim',
        record: 'DKIM',
        name: `${d.dkim_selector}._domainkey`,
        fqdn: fq(`${d.dkim_selector}._domainkey`),
        type: 'TXT',
        value: dkimTxtValue(d.dkim_public_key, d.dkim_algorithm),
        requiredFor: 'sending',
      },
      {
        key: 'spf_mx',
        record: 'SPF',
        name: d.custom_return_path,
        fqdn: fq(d.custom_return_path),
        type: 'MX',
        value: hosts.mxHost,
        priority: 10,
        requiredFor: 'sending',
      },
      {
        key: 'spf_txt',
        record: 'SPF',
        name: d.custom_return_path,
        fqdn: fq(d.custom_return_path),
        type: 'TXT',
        value: spfValue(hosts.mxHost),
        requiredFor: 'sending',
      },
      {
        key: 'dmarc',
        record: 'DMARC',
        name: '_dmarc',
        fqdn: fq('_dmarc'),
        type: 'TXT',
        value: DMARC_VALUE,
        requiredFor: null,
      },
    );
    // Required for nothing: turning it on never stops a verified domain from sending; it signs
    // (beside RSA) once this record is found.
    const edName = `${DKIM_ED25519_SELECTOR}._domainkey`;
    if (d.dkim_ed25519_public_key)
      out.push({
        key: 'dkim_ed25519',
        record: 'DKIM',
        name: edName,
        fqdn: fq(edName),
        type: 'TXT',
        value: dkimTxtValue(d.dkim_ed25519_public_key, 'ed25519'),
        requiredFor: null,
      });
  }
  if (d.receiving)
    out.push({
      key: 'receiving_mx',
      record: 'Receiving',
      name: d.name,
      fqdn: d.name,
      type: 'MX',
      value: hosts.mxHost,
      priority: 10,
      requiredFor: 'receiving',
    });
  if (d.tracking_subdomain)
    out.push({
      key: 'tracking',
      record: 'Tracking',
      name: d.tracking_subdomain,
      fqdn: fq(d.tracking_subdomain),
      type: 'CNAME',
      value: hosts.trackingHost,
      requiredFor: 'tracking',
    });
  return out;
}

/** The wire shape of one record. */
export function recordBody(r: DnsRecordSpec, status: RecordState) {
  return {
    record: r.record,
    name: r.name,
    value: r.value,
    type: r.type,
    ttl: 'Auto',
    status,
    ...(r.priority !== undefined ? { priority: r.priority } : {}),
  };
}
