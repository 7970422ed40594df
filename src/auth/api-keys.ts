// API keys as a capability: create (token shown once), authenticate a bearer token, bootstrap.
// Authentication is on every request's path, so a verified key is cached for a few seconds
// (deletions in this process take effect at once; in other processes within CACHE_MS).
// An OAuth access token (oauth/tokens.ts) is accepted wherever a key is, with its grant's team and
// scope as the permission; it is never cached, so revoking its grant stops it at once everywhere.
import { AppError, invalidField } from '../errors.js';
import { apiKeyToken, sha256Hex, uuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import {
  apiKeyDelete,
  apiKeyFindByHash,
  apiKeyInsert,
  apiKeyList,
  apiKeyListDetailed,
  apiKeyRename,
  apiKeyTouchMany,
  apiKeyUpdateLimits,
  type ApiKeyAuth,
  type Permission,
} from '../store/api-keys.js';
import { domainFindById } from '../store/domains.js';
import { isUuid } from '../lib/ids.js';
import type { PageQuery } from '../store/paginate.js';
import { findAccess, isAccessToken } from '../oauth/tokens.js';
import { auditRecord, inTx, SYSTEM_ACTOR, type AuditActor } from '../audit/record.js';
import { compileNetworks, inNetworks, MAX_NETWORKS, normalizeCidr } from '../lib/cidr.js';
import type { BlockList } from 'node:net';
import { SingleFlight } from '../lib/single-flight.js';

/** What an OAuth access token authenticates as: no key (id null), the grant's team and scope. */
export interface OAuthTokenAuth {
  id: null;
  team_id: string;
  permission: Permission;
  domain_id: null;
  grant_id: string;
}

export type TokenAuth = ApiKeyAuth | OAuthTokenAuth;

const CACHE_MS = 5_000;
const MAX_EXPIRY_MS = 10 * 365 * 86400_000; // an expiry at most ten years ahead

/** A verified key as cached: its expiry and networks (compiled once) travel with it. */
interface CachedKey {
  key: ApiKeyAuth;
  until: number;
  expiresAt: number | null;
  networks: BlockList | null;
}

/** The Mailroom extensions of POST /api-keys, checked at the edge (422 naming the field). */
export function parseKeyLimits(body: { expires_at?: unknown; allowed_networks?: unknown }): {
  expiresAt: Date | null;
  allowedNetworks: string[] | null;
} {
  let expiresAt: Date | null = null;
  if (body.expires_at !== undefined && body.expires_at !== null) {
    const v = body.expires_at;
    const t = typeof v === 'string' && v.length <= 40 && /^\d{4}-\d{2}-\d{2}T/.test(v) ? Date.parse(v) : Number.NaN;
    if (Number.isNaN(t)) throw invalidField('expires_at', 'must be an ISO 8601 date-time, e.g. 2030-01-31T00:00:00Z.');
    if (t <= Date.now()) throw invalidField('expires_at', 'must be in the future.');
    if (t > Date.now() + MAX_EXPIRY_MS) throw invalidField('expires_at', 'must be at most ten years ahead.');
    expiresAt = new Date(t);
  }
  let allowedNetworks: string[] | null = null;
  if (body.allowed_networks !== undefined && body.allowed_networks !== null) {
    const v = body.allowed_networks;
    if (!Array.isArray(v) || v.length < 1 || v.length > MAX_NETWORKS)
      throw invalidField('allowed_networks', `must be a list of 1 to ${MAX_NETWORKS} CIDR networks.`);
    allowedNetworks = v.map((c, i) => {
      const n = typeof c === 'string' ? normalizeCidr(c) : undefined;
      if (!n) throw invalidField(`allowed_networks[${i}]`, 'must be an IPv4 or IPv6 network, e.g. 203.0.113.0/24.');
      return n;
    });
  }
  return { expiresAt, allowedNetworks };
}
const TOUCH_EVERY_MS = 60_000;

export interface CreatedKey {
  id: string;
  token: string;
}

export class ApiKeys {
  private cache = new Map<string, CachedKey>();
  /** one lookup per token hash in flight: an expired entry is looked up once, not by every request waiting on it */
  private lookups = new SingleFlight<CachedKey | undefined>();
  /** moves on every change of a key in this process: a lookup that ran across one is not cached */
  private generation = 0;
  private touched = new Map<string, number>();
  private pendingTouch = new Set<string>();

  constructor(private readonly db: Queryable) {}

  async create(
    teamId: string,
    opts: {
      name: string;
      permission?: Permission;
      domainId?: string | null;
      token?: string;
      expiresAt?: Date | null;
      allowedNetworks?: string[] | null;
    },
    actor: AuditActor = SYSTEM_ACTOR,
  ): Promise<CreatedKey> {
    const token = opts.token ?? apiKeyToken();
    const id = uuid();
    const permission = opts.permission ?? 'full_access';
    const domainId = opts.domainId ?? null;
    const expiresAt = opts.expiresAt ?? null;
    const allowedNetworks = opts.allowedNetworks ?? null;
    await inTx(this.db, async (tx) => {
      await apiKeyInsert(tx, {
        id,
        teamId,
        name: opts.name,
        tokenHash: sha256Hex(token),
        tokenHint: token.slice(0, 6),
        permission,
        domainId,
        expiresAt,
        allowedNetworks,
      });
      await auditRecord(tx, teamId, actor, {
        action: 'api_key.created',
        target: { kind: 'api_key', id },
        after: {
          name: opts.name,
          permission,
          domain_id: domainId,
          ...(expiresAt ? { expires_at: expiresAt.toISOString() } : {}),
          ...(allowedNetworks ? { allowed_networks: allowedNetworks } : {}),
        },
      });
    });
    return { id, token };
  }

  /** POST /api-keys: checks the permission and the domain a sending key is bound to, then creates. */
  async createChecked(
    teamId: string,
    body: {
      name: string;
      permission?: string;
      domain_id?: string | null;
      expires_at?: unknown;
      allowed_networks?: unknown;
    },
    actor: AuditActor,
  ): Promise<CreatedKey> {
    if (!body.name.trim()) throw invalidField('name', 'must not be empty.'); // a nameless key cannot be told apart in a list
    const limits = parseKeyLimits(body);
    const permission = body.permission ?? 'full_access';
    if (permission !== 'full_access' && permission !== 'sending_access') throw new AppError('invalid_access');
    let domainId: string | null = null;
    if (body.domain_id) {
      if (permission !== 'sending_access')
        throw new AppError(
          'validation_error',
          'Invalid `domain_id` field: a domain can only be set on a "sending_access" key.',
        );
      if (!isUuid(body.domain_id) || !(await domainFindById(this.db, teamId, body.domain_id)))
        throw new AppError('not_found', 'Domain not found');
      domainId = body.domain_id;
    }
    return this.create(teamId, { name: body.name, permission, domainId, ...limits }, actor);
  }

  list(teamId: string, page: PageQuery) {
    return apiKeyList(this.db, teamId, page);
  }

  /** Every key with its permission, domain and token prefix (the dashboard's table; not part of Resend's list). */
  listDetailed(teamId: string) {
    return apiKeyListDetailed(this.db, teamId);
  }

  /**
   * PATCH /api-keys/:id: the name, the expiry and the allowed networks (null lifts a limit), any of
   * them; one audit entry (api_key.updated) with the changed fields before and after. False when
   * the team has no such key. The key's cached copy in this process goes at once; other processes
   * see the change within the cache's 5 s, as with a revocation.
   */
  async update(
    teamId: string,
    id: string,
    body: { name?: unknown; expires_at?: unknown; allowed_networks?: unknown },
    actor: AuditActor,
  ): Promise<boolean> {
    const name = body.name;
    if (name !== undefined && (typeof name !== 'string' || !name.trim() || name.length > 50))
      throw invalidField('name', 'must be 1 to 50 characters.');
    const limits = parseKeyLimits(body);
    const change: { expiresAt?: Date | null; allowedNetworks?: string[] | null } = {};
    if (body.expires_at !== undefined) change.expiresAt = limits.expiresAt;
    if (body.allowed_networks !== undefined) change.allowedNetworks = limits.allowedNetworks;
    if (name === undefined && !Object.keys(change).length)
      throw new AppError(
        'missing_required_field',
        'Nothing to change: give `name`, `expires_at` or `allowed_networks`.',
      );
    if (!isUuid(id)) return false;
    const hash = await inTx(this.db, async (tx) => {
      const before: Record<string, unknown> = {};
      const after: Record<string, unknown> = {};
      let tokenHash: string | undefined;
      if (name !== undefined) {
        const old = await apiKeyRename(tx, teamId, id, name as string);
        if (old === undefined) return undefined;
        before.name = old;
        after.name = name;
      }
      if (Object.keys(change).length) {
        const old = await apiKeyUpdateLimits(tx, teamId, id, change);
        if (!old) return undefined;
        tokenHash = old.token_hash;
        if (change.expiresAt !== undefined) {
          before.expires_at = old.expires_at?.toISOString() ?? null;
          after.expires_at = change.expiresAt?.toISOString() ?? null;
        }
        if (change.allowedNetworks !== undefined) {
          before.allowed_networks = old.allowed_networks;
          after.allowed_networks = change.allowedNetworks;
        }
      }
      await auditRecord(tx, teamId, actor, {
        action: 'api_key.updated',
        target: { kind: 'api_key', id },
        before,
        after,
      });
      return tokenHash ?? '';
    });
    if (hash === undefined) return false;
    if (hash) this.forget(hash);
    return true;
  }

  /** Creates a full-access key with exactly this token unless one already exists. */
  /**
   * Creates the key unless it exists; true when this call created it. Idempotent across processes:
   * N processes starting together on one database all ensure the bootstrap key, and the ones that
   * lose the race to insert it see the unique token hash refuse theirs (issue 26: one in seven
   * starts of three processes exited 1 on api_keys_token_hash_key).
   */
  async ensure(teamId: string, token: string, name: string): Promise<boolean> {
    if (await apiKeyFindByHash(this.db, sha256Hex(token))) return false;
    try {
      await this.create(teamId, { name, token });
      return true;
    } catch (err) {
      if ((err as { code?: string; constraint?: string }).constraint === 'api_keys_token_hash_key') return false;
      throw err;
    }
  }

  async delete(teamId: string, id: string, actor: AuditActor = SYSTEM_ACTOR): Promise<boolean> {
    const gone = await inTx(this.db, async (tx) => {
      const key = await apiKeyDelete(tx, teamId, id);
      if (key)
        await auditRecord(tx, teamId, actor, {
          action: 'api_key.revoked',
          target: { kind: 'api_key', id },
          before: { name: key.name, permission: key.permission },
        });
      return key;
    });
    if (gone) this.forget(gone.token_hash);
    return Boolean(gone);
  }

  /** The key behind an Authorization header value, or the documented error. */
  async authenticate(header: string | undefined, ip: string | null = null): Promise<TokenAuth> {
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw new AppError('missing_api_key');
    return this.verifyToken(m[1], ip);
  }

  /**
   * The key behind a token. A key with an expiry is refused once past it; a key with allowed
   * networks is refused from any other client address (and when the caller has none to give):
   * both 401 restricted_api_key, checked on cached keys too.
   */
  async verifyToken(token: string, ip: string | null = null): Promise<TokenAuth> {
    if (isAccessToken(token)) {
      const access = await findAccess(this.db, token);
      if (!access) throw new AppError('invalid_api_key');
      return {
        id: null,
        team_id: access.team_id,
        permission: access.permission,
        domain_id: null,
        grant_id: access.grant_id,
      };
    }
    const hash = sha256Hex(token);
    const now = Date.now();
    let hit = this.cache.get(hash);
    if (!hit || hit.until <= now) {
      hit = await this.lookups.run(hash, () => this.lookUp(hash));
      if (!hit) throw new AppError('invalid_api_key');
    }
    if (hit.expiresAt !== null && hit.expiresAt <= now)
      throw new AppError('restricted_api_key', 'This API key has expired.');
    if (hit.networks && !(ip && inNetworks(hit.networks, ip)))
      throw new AppError('restricted_api_key', 'This API key is not allowed from this network.');
    const key = hit.key;
    if ((this.touched.get(key.id) ?? 0) + TOUCH_EVERY_MS < now) {
      this.touched.set(key.id, now);
      this.pendingTouch.add(key.id);
    }
    return key;
  }

  /** A changed or revoked key: its cached copy and any lookup in flight are dropped at once in this process. */
  private forget(hash: string): void {
    this.generation++;
    this.cache.delete(hash);
    this.lookups.forget(hash);
  }

  /** The key row behind a token hash, cached for CACHE_MS unless revoked or changed while looked up. */
  private async lookUp(hash: string): Promise<CachedKey | undefined> {
    const generation = this.generation;
    const row = await apiKeyFindByHash(this.db, hash);
    if (!row) {
      this.cache.delete(hash);
      return undefined;
    }
    const { expires_at, allowed_networks, ...key } = row;
    const entry: CachedKey = {
      key,
      until: Date.now() + CACHE_MS,
      expiresAt: expires_at ? expires_at.getTime() : null,
      networks: allowed_networks ? compileNetworks(allowed_networks) : null,
    };
    if (generation === this.generation) {
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, entry);
    }
    return entry;
  }

  /** Writes the batched last_used_at updates; called periodically and at shutdown. */
  async flushTouches(): Promise<void> {
    const ids = [...this.pendingTouch];
    this.pendingTouch.clear();
    await apiKeyTouchMany(this.db, ids);
  }
}
