// Which recipients the MX listener takes, and for what: mail for a domain whose receiving
// capability is enabled and whose MX record verified, a VERP address on a sending domain's
// return-path host, or an `unsubscribe+<token>` address there (List-Unsubscribe's mailto). Everything else is refused (never an open relay). Lookups are cached for a
// few seconds: at hundreds of messages per second the domains table would otherwise be hit per RCPT.
import { AppError } from '../errors.js';
import type { Pool } from '../store/db.js';
import { domainsFindForInboundHost, type InboundDomain } from '../store/domains.js';
import { MAILTO_LOCAL_PREFIX, TOKEN_LENGTH } from '../tracking/unsubscribe-tokens.js';

export type Route =
  | { kind: 'receive'; teamId: string; domainId: string }
  | { kind: 'return_path'; teamId: string; domainId: string; emailId: string | null }
  | { kind: 'unsubscribe'; teamId: string; domainId: string; token: string }
  | { kind: 'refuse'; error: AppError };

const VERP = /^bounces\+([0-9a-f]{32})$/i;
const UNSUBSCRIBE = new RegExp(`^${MAILTO_LOCAL_PREFIX.replace('+', '\\+')}([a-z2-7]{${TOKEN_LENGTH}})$`, 'i'); // tracking/unsubscribe-tokens.ts
const CACHE_MS = 5_000;
const CACHE_MAX = 10_000;
const RECEIVING_OK = new Set(['verified', 'temporary_failure']); // a record briefly missing does not bounce mail

const uuidOf = (hex: string) =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`.toLowerCase();

export class InboundRouter {
  private cache = new Map<string, { rows: InboundDomain[]; until: number }>();
  constructor(private readonly pool: Pool) {}

  private async domainsFor(host: string): Promise<InboundDomain[]> {
    const hit = this.cache.get(host);
    if (hit && hit.until > Date.now()) return hit.rows;
    const rows = await domainsFindForInboundHost(this.pool, host);
    if (this.cache.size >= CACHE_MAX) this.cache.clear();
    this.cache.set(host, { rows, until: Date.now() + CACHE_MS });
    return rows;
  }

  async route(address: string): Promise<Route> {
    const at = address.lastIndexOf('@');
    if (at <= 0) return { kind: 'refuse', error: new AppError('invalid_recipient', 'Recipient address is not valid.') };
    const local = address.slice(0, at);
    const host = address
      .slice(at + 1)
      .toLowerCase()
      .replace(/\.$/, '');
    for (const d of await this.domainsFor(host)) {
      if (d.name.toLowerCase() === host) {
        if (d.receiving && RECEIVING_OK.has(d.receiving_status ?? ''))
          return { kind: 'receive', teamId: d.team_id, domainId: d.id };
        continue;
      }
      if (!d.sending) continue;
      const u = UNSUBSCRIBE.exec(local); // the token is checked by the listener (mx-session.ts)
      if (u) return { kind: 'unsubscribe', teamId: d.team_id, domainId: d.id, token: u[1].toLowerCase() };
      // Any local part: a VERP address names its email; reports sent elsewhere on the host (a
      // feedback loop's fixed address) are matched by the Message-ID they enclose.
      const m = VERP.exec(local);
      return { kind: 'return_path', teamId: d.team_id, domainId: d.id, emailId: m ? uuidOf(m[1]) : null };
    }
    return { kind: 'refuse', error: new AppError('relay_denied') };
  }
}
