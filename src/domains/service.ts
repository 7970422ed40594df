// Sending domains as a capability: create (with a DKIM key pair, private key sealed at rest),
// read, update, delete, verify by DNS (or at once in capture mode), and the background
// re-checks. Returns Resend's wire shapes; HTTP and SMTP call it, it knows neither.
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import type { Config, Region } from '../config/schema.js';
import { REGIONS } from '../config/schema.js';
import { AppError, notFound } from '../errors.js';
import type { Sealer } from '../lib/crypto.js';
import { isUuid, uuid } from '../lib/ids.js';
import { isoOf } from '../lib/time.js';
import type { Logger } from '../lib/log.js';
import type { DkimKey } from '../mta/dkim.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { resourceEventInsert } from '../store/resource-events.js';
import {
  domainFindByIdAnyTeam,
  domainDelete,
  domainExistsByName,
  domainFindById,
  domainFindByName,
  domainInsert,
  domainList,
  domainSaveVerification,
  domainsClaimDueChecks,
  domainSetEd25519Key,
  domainUpdateSettings,
  type DomainRow,
  type RecordCheck,
} from '../store/domains.js';
import type { PageQuery } from '../store/paginate.js';
import { SYSTEM_TEAM_ID } from '../store/teams.js';
import { auditRecord, SYSTEM_ACTOR, type AuditActor } from '../audit/record.js';
import { DomainClaims } from './claims.js';
import { checkRecord, createResolver } from './dns-check.js';
import { normalizeDomainName, normalizeSubdomain } from './names.js';
import { DKIM_ED25519_SELECTOR, domainRecords, recordBody, type Hosts } from './records.js';
import { capabilityStates, domainStatus, nextCheckAt, nextRecordCheck } from './status.js';

const generateKeyPairAsync = promisify(generateKeyPair);
export const DKIM_SELECTOR = 'mailroom';

export interface DomainInput {
  name?: string;
  region?: string;
  custom_return_path?: string;
  open_tracking?: boolean;
  click_tracking?: boolean;
  tls?: string;
  capabilities?: { sending?: string; receiving?: string };
  tracking_subdomain?: string | null;
  dkim_ed25519?: boolean; // Mailroom extension
}

/** A new domain's settings, validated. */
export interface NewDomainSettings {
  name: string;
  region: Region;
  custom_return_path: string;
  open_tracking: boolean;
  click_tracking: boolean;
  tls: 'opportunistic' | 'enforced';
  sending: boolean;
  receiving: boolean;
  tracking_subdomain: string | null;
  dkim_ed25519: boolean;
}

export type DomainKeys = Pick<
  DomainRow,
  | 'dkim_selector'
  | 'dkim_algorithm'
  | 'dkim_public_key'
  | 'dkim_private_key'
  | 'dkim_ed25519_public_key'
  | 'dkim_ed25519_private_key'
>;

/** A sending domain with the keys it signs with now: RSA, plus Ed25519 once its record verified. */
export interface SendingDomain {
  row: DomainRow;
  keys: DkimKey[];
}

const enabled = (field: string, v: string | undefined, dflt: boolean): boolean => {
  if (v === undefined) return dflt;
  if (v !== 'enabled' && v !== 'disabled')
    throw new AppError('validation_error', `Invalid \`${field}\` field: must be "enabled" or "disabled".`);
  return v === 'enabled';
};
const tlsOf = (v: string | undefined): 'opportunistic' | 'enforced' | undefined => {
  if (v === undefined || v === 'opportunistic' || v === 'enforced') return v;
  throw new AppError('validation_error', 'Invalid `tls` field: must be "opportunistic" or "enforced".');
};

export class Domains {
  private readonly hosts: Hosts;
  /** POST /domains/claim and its verification (claims.ts) */
  readonly claims: DomainClaims;
  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
    private readonly sealer: Sealer,
    private readonly log: Logger,
  ) {
    this.hosts = { mxHost: config.mxHost, trackingHost: new URL(config.publicUrl).hostname };
    this.claims = new DomainClaims(pool, config, this);
  }

  private records(d: DomainRow) {
    return domainRecords(d, this.hosts).map((r) => recordBody(r, d.record_status[r.key]?.status ?? 'not_started'));
  }

  private summary(d: DomainRow) {
    return {
      id: d.id,
      name: d.name,
      status: d.status,
      created_at: d.created_at,
      region: d.region,
      open_tracking: d.open_tracking,
      click_tracking: d.click_tracking,
      capabilities: { sending: d.sending ? 'enabled' : 'disabled', receiving: d.receiving ? 'enabled' : 'disabled' },
    };
  }

  private detail(d: DomainRow) {
    return {
      ...this.summary(d),
      tracking_subdomain: d.tracking_subdomain,
      custom_return_path: d.custom_return_path,
      tls: d.tls,
      dkim_ed25519: Boolean(d.dkim_ed25519_public_key),
      records: this.records(d),
    };
  }

  /** What an audit entry keeps of a domain: its name and settings, never its keys. */
  private auditSettings(d: DomainRow): Record<string, unknown> {
    return {
      name: d.name,
      status: d.status,
      region: d.region,
      sending: d.sending,
      receiving: d.receiving,
      open_tracking: d.open_tracking,
      click_tracking: d.click_tracking,
      tls: d.tls,
      tracking_subdomain: d.tracking_subdomain,
      dkim_ed25519: Boolean(d.dkim_ed25519_public_key),
    };
  }

  /** domain.created|updated|deleted for webhooks, in the caller's transaction when it has one. */
  private event(
    db: Queryable,
    type: 'domain.created' | 'domain.updated' | 'domain.deleted',
    d: DomainRow,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const created = isoOf(d.created_at as Date | string);
    return resourceEventInsert(db, d.team_id, d.id, type, {
      id: d.id,
      name: d.name,
      status: d.status,
      created_at: created,
      region: d.region,
      records: this.records(d),
      ...extra,
    });
  }

  /** domain.updated for a change of the reputation guard's state (reputation/guard.ts), in its transaction. */
  announceReputation(db: Queryable, d: DomainRow, reputation: Record<string, unknown>): Promise<void> {
    return this.event(db, 'domain.updated', d, { reputation });
  }

  private async find(teamId: string, id: string): Promise<DomainRow> {
    const d = isUuid(id) ? await domainFindById(this.pool, teamId, id) : undefined;
    if (!d) throw notFound('Domain');
    return d;
  }

  /** The validated settings of a new domain (POST /domains; POST /domains/claim keeps them for the transfer). */
  settingsOf(input: DomainInput): NewDomainSettings {
    if (input.name === undefined) throw new AppError('missing_required_field', 'Missing `name` field.');
    const name = normalizeDomainName(input.name);
    const region = (input.region ?? 'us-east-1') as Region;
    if (!REGIONS.includes(region)) throw new AppError('invalid_region');
    const sending = enabled('capabilities.sending', input.capabilities?.sending, true);
    const receiving = enabled('capabilities.receiving', input.capabilities?.receiving, false);
    if (!sending && !receiving)
      throw new AppError(
        'validation_error',
        'At least one of `capabilities.sending` and `capabilities.receiving` must be enabled.',
      );
    const returnPath = normalizeSubdomain('custom_return_path', input.custom_return_path ?? 'send');
    const tracking = input.tracking_subdomain
      ? normalizeSubdomain('tracking_subdomain', input.tracking_subdomain)
      : null;
    return {
      name,
      region,
      custom_return_path: returnPath,
      open_tracking: input.open_tracking ?? false,
      click_tracking: input.click_tracking ?? false,
      tls: tlsOf(input.tls) ?? 'opportunistic',
      sending,
      receiving,
      tracking_subdomain: tracking,
      dkim_ed25519: Boolean(input.dkim_ed25519),
    };
  }

  /** Fresh DKIM keys (RSA, and Ed25519 when asked), made before the transaction that inserts them. */
  async freshKeys(ed25519: boolean): Promise<DomainKeys> {
    const { publicKey, privateKey } = await generateKeyPairAsync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const ed = ed25519 ? await this.newEd25519Key() : null;
    return {
      dkim_selector: DKIM_SELECTOR,
      dkim_algorithm: 'rsa',
      dkim_public_key: (publicKey as Buffer).toString('base64'),
      dkim_private_key: this.sealer.seal(privateKey as string),
      dkim_ed25519_public_key: ed?.publicKey ?? null,
      dkim_ed25519_private_key: ed?.sealedPrivateKey ?? null,
    };
  }

  /** Inserts a new domain with its keys and announces it (domain.created), in the caller's transaction. */
  async insert(tx: Queryable, teamId: string, id: string, s: NewDomainSettings, keys: DomainKeys): Promise<DomainRow> {
    const { dkim_ed25519: _ed, ...settings } = s;
    const inserted = await domainInsert(tx, { id, team_id: teamId, ...settings, ...keys });
    await this.event(tx, 'domain.created', inserted);
    return inserted;
  }

  /**
   * A domain taken by a verified claim leaves its holder, in the claim's transaction: deleted as
   * DELETE /domains/:id deletes it, and domain.deleted naming the claim tells the holder (its
   * webhooks, and the event the dashboard lists).
   */
  async removeClaimed(tx: Queryable, d: DomainRow, claim: Record<string, unknown>): Promise<void> {
    if (!(await domainDelete(tx, d.team_id, d.id))) throw notFound('Domain');
    await this.event(tx, 'domain.deleted', d, { reason: 'claimed', claim });
  }

  /** domain.updated about a claim on the domain, for its holder (in the caller's transaction). */
  announceClaim(db: Queryable, d: DomainRow, claim: Record<string, unknown>): Promise<void> {
    return this.event(db, 'domain.updated', d, { claim });
  }

  async create(teamId: string, input: DomainInput, actor: AuditActor) {
    const s = this.settingsOf(input);
    const name = s.name;
    if (await domainExistsByName(this.pool, name))
      throw new AppError('forbidden', `The \`${name}\` domain has been registered already.`);
    const keys = await this.freshKeys(s.dkim_ed25519);
    let row: DomainRow;
    try {
      row = await withTx(this.pool, async (tx) => {
        const d = await this.insert(tx, teamId, uuid(), s, keys);
        await auditRecord(tx, teamId, actor, {
          action: 'domain.created',
          target: { kind: 'domain', id: d.id },
          after: this.auditSettings(d),
        });
        return d;
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new AppError('forbidden', `The \`${name}\` domain has been registered already.`);
      throw err;
    }
    const {
      id,
      name: n,
      created_at,
      status,
      open_tracking,
      click_tracking,
      tracking_subdomain,
      capabilities,
      records,
      region: r,
    } = this.detail(row);
    return {
      id,
      name: n,
      created_at,
      status,
      open_tracking,
      click_tracking,
      tracking_subdomain,
      capabilities,
      records,
      region: r,
    };
  }

  async get(teamId: string, id: string) {
    return { object: 'domain' as const, ...this.detail(await this.find(teamId, id)) };
  }

  async list(teamId: string, page: PageQuery) {
    const p = await domainList(this.pool, teamId, page);
    return { object: 'list' as const, has_more: p.has_more, data: p.data.map((d) => this.summary(d)) };
  }

  async update(teamId: string, id: string, input: DomainInput, actor: AuditActor) {
    const d = await this.find(teamId, id);
    const sending = enabled('capabilities.sending', input.capabilities?.sending, d.sending);
    const receiving = enabled('capabilities.receiving', input.capabilities?.receiving, d.receiving);
    if (!sending && !receiving)
      throw new AppError(
        'validation_error',
        'At least one of `capabilities.sending` and `capabilities.receiving` must be enabled.',
      );
    const patch: Parameters<typeof domainUpdateSettings>[3] = {
      open_tracking: input.open_tracking,
      click_tracking: input.click_tracking,
      tls: tlsOf(input.tls),
      sending,
      receiving,
    };
    if (input.tracking_subdomain !== undefined)
      patch.tracking_subdomain = input.tracking_subdomain
        ? normalizeSubdomain('tracking_subdomain', input.tracking_subdomain)
        : null;
    const ed25519 = input.dkim_ed25519 === true && !d.dkim_ed25519_public_key ? await this.newEd25519Key() : undefined;
    await withTx(this.pool, async (tx) => {
      await domainUpdateSettings(tx, teamId, id, patch);
      if (ed25519) await domainSetEd25519Key(tx, teamId, id, ed25519);
      if (input.dkim_ed25519 === false && d.dkim_ed25519_public_key) await domainSetEd25519Key(tx, teamId, id, null);
      const after = await domainFindById(tx, teamId, id);
      await auditRecord(tx, teamId, actor, {
        action: 'domain.updated',
        target: { kind: 'domain', id },
        before: this.auditSettings(d),
        after: after && this.auditSettings(after),
      });
    });
    // Capabilities or records changed: the aggregate status must follow.
    await this.refreshStatus(await this.find(teamId, id), false);
    await this.event(this.pool, 'domain.updated', await this.find(teamId, id));
    return { object: 'domain' as const, id };
  }

  /** RFC 8463: the record publishes the raw 32-byte public key (the last 32 bytes of its SPKI form). */
  private async newEd25519Key(): Promise<{ publicKey: string; sealedPrivateKey: string }> {
    const { publicKey, privateKey } = await generateKeyPairAsync('ed25519', {
      publicKeyEncoding: { type: 'spki', format: 'der' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    return {
      publicKey: (publicKey as Buffer).subarray(-32).toString('base64'),
      sealedPrivateKey: this.sealer.seal(privateKey as string),
    };
  }

  async remove(teamId: string, id: string, actor: AuditActor) {
    const d = isUuid(id) ? await domainFindById(this.pool, teamId, id) : undefined;
    const deleted =
      d &&
      (await withTx(this.pool, async (tx) => {
        if (!(await domainDelete(tx, teamId, id))) return false;
        await this.event(tx, 'domain.deleted', d);
        await auditRecord(tx, teamId, actor, {
          action: 'domain.deleted',
          target: { kind: 'domain', id },
          before: this.auditSettings(d),
        });
        return true;
      }));
    if (!deleted) throw notFound('Domain');
    return { object: 'domain' as const, id, deleted: true };
  }

  /** Checks every record now (POST /domains/:id/verify) and starts a new 72 h window if needed. */
  async verify(teamId: string, id: string, actor: AuditActor) {
    const d = await this.find(teamId, id);
    const now = new Date();
    const started = d.status === 'verified' || d.status === 'temporary_failure' ? (d.verify_started_at ?? now) : now;
    await this.check(d, started, now, actor);
    return { object: 'domain' as const, id };
  }

  private async refreshStatus(d: DomainRow, announce = true): Promise<void> {
    const status = domainStatus(domainRecords(d, this.hosts), d.record_status);
    if (status !== d.status) {
      await domainSaveVerification(this.pool, d.id, {
        status,
        recordStatus: d.record_status,
        verifyStartedAt: d.verify_started_at,
        verifiedAt: d.verified_at,
        nextCheckAt: d.verify_started_at ? nextCheckAt(status, new Date(), d.verify_started_at) : null,
      });
      if (announce) await this.event(this.pool, 'domain.updated', { ...d, status });
    }
  }

  /** `actor`: who asked (POST /domains/:id/verify); the background re-check acts as the system. */
  private async check(d: DomainRow, verifyStartedAt: Date, now: Date, actor = SYSTEM_ACTOR): Promise<string> {
    const specs = domainRecords(d, this.hosts);
    const checks: Record<string, RecordCheck> = {};
    if (this.config.deliveryMode === 'capture') {
      for (const s of specs)
        checks[s.key] = { status: 'verified', checked_at: now.toISOString(), detail: 'capture mode: DNS not checked' };
    } else {
      const resolver = createResolver(this.config.dnsServers);
      const outcomes = await Promise.all(specs.map((s) => checkRecord(s, resolver)));
      specs.forEach((s, i) => {
        checks[s.key] = nextRecordCheck(d.record_status[s.key], outcomes[i], now, verifyStartedAt);
      });
    }
    const status = domainStatus(specs, checks);
    const verifiedAt = status === 'verified' ? (d.verified_at ?? now) : d.verified_at;
    await withTx(this.pool, async (tx) => {
      await domainSaveVerification(tx, d.id, {
        status,
        recordStatus: checks,
        verifyStartedAt,
        verifiedAt,
        nextCheckAt: nextCheckAt(status, now, verifyStartedAt),
      });
      if (status === d.status) return;
      await this.event(tx, 'domain.updated', { ...d, status, record_status: checks });
      if (status === 'verified')
        await auditRecord(tx, d.team_id, actor, {
          action: 'domain.verified',
          target: { kind: 'domain', id: d.id },
          before: { name: d.name, status: d.status },
          after: { name: d.name, status },
        });
    });
    if (status !== d.status) this.log.info('domain status changed', { domain: d.name, from: d.status, to: status });
    return status;
  }

  /** Background job: re-checks domains whose next check is due; safe to run in many workers. */
  async recheckDue(limit = 20): Promise<number> {
    const due = await domainsClaimDueChecks(this.pool, limit, 600);
    for (const { id, team_id } of due) {
      const d = await domainFindById(this.pool, team_id, id);
      if (d)
        await this.check(d, d.verify_started_at ?? new Date(), new Date()).catch((err) =>
          this.log.error('domain re-check failed', { err, domain: d.name }),
        );
    }
    return due.length;
  }

  /** The team's domain for a From address, with its signing keys, if it may send now. */
  async sendingDomain(teamId: string, name: string): Promise<SendingDomain | undefined> {
    return this.usable(await domainFindByName(this.pool, teamId, name));
  }

  /** The same, by id: the delivery job re-checks the domain before every attempt. */
  async sendingDomainById(teamId: string, id: string): Promise<SendingDomain | undefined> {
    // System mail is held by the hidden system team but sent from a domain of the team owning MAILROOM_DASHBOARD_FROM.
    if (teamId === SYSTEM_TEAM_ID) return this.usable(await domainFindByIdAnyTeam(this.pool, id));
    return this.usable(await domainFindById(this.pool, teamId, id));
  }

  private usable(row: DomainRow | undefined): SendingDomain | undefined {
    if (!row || !row.sending) return undefined;
    const sendState = capabilityStates(domainRecords(row, this.hosts), row.record_status).sending;
    if (sendState !== 'verified' && sendState !== 'temporary_failure') return undefined;
    try {
      const keys: DkimKey[] = [
        {
          domain: row.name,
          selector: row.dkim_selector,
          privateKey: this.sealer.open(row.dkim_private_key),
          algorithm: 'rsa-sha256',
        },
      ];
      // Ed25519 signs only while its own record is verified: a receiver that finds no key for a
      // signature reports it as failed, and the RSA signature carries the message meanwhile.
      if (row.dkim_ed25519_private_key && row.record_status.dkim_ed25519?.status === 'verified') {
        keys.push({
          domain: row.name,
          selector: DKIM_ED25519_SELECTOR,
          privateKey: this.sealer.open(row.dkim_ed25519_private_key),
          algorithm: 'ed25519-sha256',
        });
      }
      return { row, keys };
    } catch {
      throw new Error(
        `cannot decrypt the DKIM key of ${row.name}: MAILROOM_SECRET_KEY is not the one it was sealed with (every process sharing a database must use the same secret)`,
      );
    }
  }
}
