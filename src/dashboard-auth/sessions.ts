// Dashboard sessions: a random token in an HttpOnly cookie (only its hash is stored), a CSRF token
// derived from it (HMAC, sent back by the SPA in a header: a signed double submit), and the
// request authentication that lets the dashboard call the same REST API as an API key would.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { randomToken, sha256Hex } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import {
  sessionDelete,
  sessionFindByHash,
  sessionInsert,
  sessionPromote,
  sessionTouch,
  type SessionRow,
} from '../store/sessions.js';
import type { Role, SignInMethod } from '../store/users.js';
import { parseCookies, serializeCookie } from './cookies.js';

export const SESSION_COOKIE = 'mailroom_session';
export const CSRF_COOKIE = 'mailroom_csrf';
export const CSRF_HEADER = 'x-csrf-token';
const SESSION_DAYS = 14; // sliding: each use (at most once a minute) pushes the expiry back
const PENDING_MINUTES = 10; // a password-accepted session waiting for its second factor
const TOUCH_MS = 60_000;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface SessionAuth {
  sessionId: string;
  userId: string;
  email: string;
  name: string;
  teamId: string;
  teamName: string;
  role: Role;
  totpEnabled: boolean;
  mfaPending: boolean;
  /** how this session signed in (null for sessions from before migration 0056) */
  signInMethod: SignInMethod | null;
  /** the team requires MFA and this user has none yet: only MFA enrolment is allowed */
  mfaSetupRequired: boolean;
}

/** What the API routes see for a request authenticated by a session instead of an API key. */
export interface SessionRequestAuth {
  id: null;
  team_id: string;
  permission: 'full_access';
  domain_id: null;
  session: SessionAuth;
}

export class Sessions {
  private readonly csrfKey: Buffer;
  constructor(
    private readonly db: Queryable,
    secretKey: string,
    private readonly secure: boolean,
  ) {
    this.csrfKey = createHmac('sha256', secretKey).update('mailroom-dashboard-csrf').digest();
  }

  csrfFor(token: string): string {
    return createHmac('sha256', this.csrfKey).update(token).digest('base64url');
  }

  /** Starts a session; returns the cookies to set and the CSRF token for the SPA. */
  async create(
    req: FastifyRequest,
    userId: string,
    teamId: string,
    mfaPending: boolean,
    method: SignInMethod,
    db: Queryable = this.db, // the caller's transaction (its audit entry commits with it)
  ): Promise<{ token: string; csrf: string; cookies: string[] }> {
    const token = randomToken(43);
    const ttlS = mfaPending ? PENDING_MINUTES * 60 : SESSION_DAYS * 86400;
    await sessionInsert(db, {
      tokenHash: sha256Hex(token),
      userId,
      teamId,
      mfaPending,
      ip: req.ip ?? null,
      userAgent: (req.headers['user-agent'] ?? '').slice(0, 300) || null,
      expiresAt: new Date(Date.now() + ttlS * 1000),
      method,
    });
    return { token, csrf: this.csrfFor(token), cookies: this.cookies(token, ttlS) };
  }

  /** A pending session becomes a full one, under a new token (no fixation across the MFA step). */
  async promote(sessionId: string, db: Queryable = this.db): Promise<{ csrf: string; cookies: string[] }> {
    const token = randomToken(43);
    const ttlS = SESSION_DAYS * 86400;
    await sessionPromote(db, sessionId, sha256Hex(token), new Date(Date.now() + ttlS * 1000));
    return { csrf: this.csrfFor(token), cookies: this.cookies(token, ttlS) };
  }

  cookies(token: string, maxAgeS: number): string[] {
    return [
      serializeCookie(SESSION_COOKIE, token, { maxAgeS, httpOnly: true, secure: this.secure }),
      serializeCookie(CSRF_COOKIE, maxAgeS ? this.csrfFor(token) : '', { maxAgeS, secure: this.secure }),
    ];
  }

  clearCookies(reply: FastifyReply): void {
    reply.header('set-cookie', this.cookies('', 0));
  }

  tokenOf(req: FastifyRequest): string | undefined {
    const t = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    return t && /^[A-Za-z0-9]{43}$/.test(t) ? t : undefined;
  }

  /** The session of the request (pending ones included), or undefined. */
  async lookup(req: FastifyRequest): Promise<{ auth: SessionAuth; token: string } | undefined> {
    const token = this.tokenOf(req);
    if (!token) return undefined;
    const row = await sessionFindByHash(this.db, sha256Hex(token));
    if (!row || !row.role) return undefined; // expired, unknown, or no longer a member of its team
    if (outlived(row, Date.now())) {
      await sessionDelete(this.db, row.id); // the team's lifetime or idle timeout ended it
      return undefined;
    }
    if (!row.mfa_pending && Date.now() - row.last_seen_at.getTime() > TOUCH_MS) {
      await sessionTouch(this.db, row.id, new Date(Date.now() + SESSION_DAYS * 86400_000));
    }
    return { auth: toAuth(row), token };
  }

  /** Checks the double-submit CSRF header against the session token (constant time). */
  csrfOk(req: FastifyRequest, token: string): boolean {
    if (SAFE_METHODS.has(req.method)) return true;
    const sent = req.headers[CSRF_HEADER];
    if (typeof sent !== 'string') return false;
    const a = Buffer.from(sent);
    const b = Buffer.from(this.csrfFor(token));
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /**
   * For the API hook: undefined when the request carries an Authorization header or no live
   * session (the API-key path then answers as before); throws when the session may not do this.
   */
  async authenticateApi(req: FastifyRequest): Promise<SessionRequestAuth | undefined> {
    if (req.headers.authorization !== undefined || !this.tokenOf(req)) return undefined;
    const found = await this.lookup(req);
    if (!found || found.auth.mfaPending) return undefined;
    const { auth, token } = found;
    if (!this.csrfOk(req, token))
      throw new AppError('forbidden', 'Missing or invalid CSRF token (x-csrf-token header).');
    if (auth.mfaSetupRequired)
      throw new AppError('forbidden', 'Your team requires two-factor authentication: set it up under Account first.');
    if (auth.role === 'member' && !SAFE_METHODS.has(req.method))
      throw new AppError('forbidden', 'Members can view this team; ask an admin or owner to make changes.');
    return { id: null, team_id: auth.teamId, permission: 'full_access', domain_id: null, session: auth };
  }

  /** For dashboard-only endpoints: the session, or 401 / 403. */
  async require(
    req: FastifyRequest,
    opts: { allowPending?: boolean; allowMfaSetup?: boolean } = {},
  ): Promise<{ auth: SessionAuth; token: string }> {
    const found = await this.lookup(req);
    if (!found || (found.auth.mfaPending && !opts.allowPending)) throw new AppError('not_signed_in');
    if (!this.csrfOk(req, found.token))
      throw new AppError('forbidden', 'Missing or invalid CSRF token (x-csrf-token header).');
    if (found.auth.mfaSetupRequired && !opts.allowMfaSetup)
      throw new AppError('forbidden', 'Your team requires two-factor authentication: set it up under Account first.');
    return found;
  }

  async end(sessionId: string): Promise<void> {
    await sessionDelete(this.db, sessionId);
  }
}

/**
 * The team's session policy: past its absolute lifetime, signed in by a method the team no longer
 * allows, or idle for longer than its timeout.
 */
function outlived(row: SessionRow, now: number): boolean {
  const life = row.session_lifetime_hours;
  if (life !== null && now - row.created_at.getTime() > life * 3_600_000) return true;
  if (row.sign_in_method && !row.sign_in_methods.includes(row.sign_in_method)) return true; // method now disallowed
  return now - row.last_seen_at.getTime() > row.session_idle_minutes * 60_000;
}

function toAuth(row: SessionRow): SessionAuth {
  return {
    sessionId: row.id,
    userId: row.user_id,
    email: row.email,
    name: row.name,
    teamId: row.team_id,
    teamName: row.team_name ?? '',
    role: row.role!,
    totpEnabled: row.totp_enabled,
    mfaPending: row.mfa_pending,
    signInMethod: row.sign_in_method,
    mfaSetupRequired: !row.mfa_pending && row.require_mfa && !row.totp_enabled,
  };
}

/** Only owners and admins change a team's resources and members. */
export function requireRole(auth: SessionAuth, ...roles: Role[]): void {
  if (!roles.includes(auth.role)) throw new AppError('forbidden', `Only ${roles.join(' or ')}s can do this.`);
}
