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
  type ApiKeyAuth,
  type Permission,
} from '../store/api-keys.js';
import { domainFindById } from '../store/domains.js';
import { isUuid } from '../lib/ids.js';
import type { PageQuery } from '../store/paginate.js';
import { findAccess, isAccessToken } from '../oauth/tokens.js';
import { auditRecord, inTx, SYSTEM_ACTOR, type AuditActor } from '../audit/record.js';

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
const TOUCH_EVERY_MS = 60_000;

export interface CreatedKey {
  id: string;
  token: string;
}

export class ApiKeys {
  private cache = new Map<string, { key: ApiKeyAuth; until: number }>();
  private touched = new Map<string, number>();
  private pendingTouch = new Set<string>();

  constructor(private readonly db: Queryable) {}

  async create(
    teamId: string,
    opts: { name: string; permission?: Permission; domainId?: string | null; token?: string },
    actor: AuditActor = SYSTEM_ACTOR,
  ): Promise<CreatedKey> {
    const token = opts.token ?? apiKeyToken();
    const id = uuid();
    const permission = opts.permission ?? 'full_access';
    const domainId = opts.domainId ?? null;
    await inTx(this.db, async (tx) => {
      await apiKeyInsert(tx, {
        id,
        teamId,
        name: opts.name,
        tokenHash: sha256Hex(token),
        tokenHint: token.slice(0, 6),
        permission,
        domainId,
      });
      await auditRecord(tx, teamId, actor, {
        action: 'api_key.created',
        target: { kind: 'api_key', id },
        after: { name: opts.name, permission, domain_id: domainId },
      });
    });
    return { id, token };
  }

  /** POST /api-keys: checks the permission and the domain a sending key is bound to, then creates. */
  async createChecked(
    teamId: string,
    body: { name: string; permission?: string; domain_id?: string | null },
    actor: AuditActor,
  ): Promise<CreatedKey> {
    if (!body.name.trim()) throw invalidField('name', 'must not be empty.'); // a nameless key cannot be told apart in a list
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
    return this.create(teamId, { name: body.name, permission, domainId }, actor);
  }

  list(teamId: string, page: PageQuery) {
    return apiKeyList(this.db, teamId, page);
  }

  /** Every key with its permission, domain and token prefix (the dashboard's table; not part of Resend's list). */
  listDetailed(teamId: string) {
    return apiKeyListDetailed(this.db, teamId);
  }

  /** False when the team has no such key. */
  async rename(teamId: string, id: string, name: string, actor: AuditActor): Promise<boolean> {
    if (!isUuid(id)) return false;
    return inTx(this.db, async (tx) => {
      const before = await apiKeyRename(tx, teamId, id, name);
      if (before === undefined) return false;
      await auditRecord(tx, teamId, actor, {
        action: 'api_key.updated',
        target: { kind: 'api_key', id },
        before: { name: before },
        after: { name },
      });
      return true;
    });
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
    if (gone) this.cache.delete(gone.token_hash);
    return Boolean(gone);
  }

  /** The key behind an Authorization header value, or the documented error. */
  async authenticate(header: string | undefined): Promise<TokenAuth> {
    const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!m) throw new AppError('missing_api_key');
    return this.verifyToken(m[1]);
  }

  async verifyToken(token: string): Promise<TokenAuth> {
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
    const hit = this.cache.get(hash);
    let key = hit && hit.until > now ? hit.key : undefined;
    if (!key) {
      key = await apiKeyFindByHash(this.db, hash);
      if (!key) {
        this.cache.delete(hash);
        throw new AppError('invalid_api_key');
      }
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(hash, { key, until: now + CACHE_MS });
    }
    if ((this.touched.get(key.id) ?? 0) + TOUCH_EVERY_MS < now) {
      this.touched.set(key.id, now);
      this.pendingTouch.add(key.id);
    }
    return key;
  }

  /** Writes the batched last_used_at updates; called periodically and at shutdown. */
  async flushTouches(): Promise<void> {
    const ids = [...this.pendingTouch];
    this.pendingTouch.clear();
    await apiKeyTouchMany(this.db, ids);
  }
}
