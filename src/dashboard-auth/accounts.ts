// Who may sign in and how: first-run setup, password sign-in (throttled), invites and address
// confirmation links (the second factor is second-factor.ts's). Returns values and cookies; the HTTP
// endpoints under http/dashboard/ only translate. A password is chosen only by whoever proves the
// address: an invite sign-up takes an address (no password), sends a link to it (system mail,
// naming the team and who invited), and the password is chosen when that link is opened, which
// also joins the invite's team. Anything set on an unproven account before then (a password, a
// second factor, sessions) is discarded. The first owner at setup is the operator of a new
// installation and is taken at their word.
import type { FastifyRequest } from 'fastify';
import { originOf, userActor, type RequestOrigin } from '../audit/actor.js';
import { auditRecord } from '../audit/record.js';
import { AppError } from '../errors.js';
import { randomToken, sha256Hex } from '../lib/ids.js';
import { withTx, type Pool } from '../store/db.js';
import {
  emailVerificationConsume,
  emailVerificationFindOpen,
  emailVerificationInsert,
  oauthAccountsOfUser,
  recoveryCodesRemaining,
} from '../store/credentials.js';
import { sessionDeleteAllOfUser, sessionSetTeam, sessionsOfUser } from '../store/sessions.js';
import {
  inviteConsume,
  inviteFindById,
  inviteFindOpen,
  inviteInsert,
  memberAdd,
  membershipsOfUser,
  type SignInMethod,
  userCount,
  userFindByEmail,
  userFindById,
  userInsert,
  userProveAddress,
  userSetVouched,
  userSetName,
  userSetPassword,
  type InviteRow,
  type Role,
  type UserRow,
} from '../store/users.js';
import { hashPassword, passwordProblem, verifyPassword } from './password.js';
import type { SessionAuth, Sessions } from './sessions.js';
import type { SystemMail } from './system-mail.js';
import { auditSignInFailed } from './sign-in-audit.js';
import type { LoginThrottle } from './throttle.js';

const SETUP_LOCK = 7_317_007; // advisory lock: two first visitors cannot both become the owner
const INVITE_DAYS = 7;
const VERIFY_TTL_MS = 24 * 3600_000;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const VERIFY_TOKEN = /^[A-Za-z0-9]{40}$/;
const escapeHtml = (s: string) => s.replace(/[<>&"]/g, '');

export interface Started {
  mfa_required: boolean;
  csrf: string;
  cookies: string[];
}

export function checkEmail(email: unknown): string {
  if (typeof email !== 'string' || !EMAIL_RE.test(email.trim()) || email.length > 254)
    throw new AppError('validation_error', 'Enter a valid email address.');
  return email.trim();
}

function checkPassword(password: unknown): string {
  const problem = passwordProblem(password);
  if (problem) throw new AppError('validation_error', problem);
  return password as string;
}

/** An email-bound invite is only for that address. */
export function checkInviteBinding(inv: InviteRow, email: string): void {
  if (inv.email && inv.email.toLowerCase() !== email.toLowerCase())
    throw new AppError('forbidden', `This invite is for ${inv.email}.`);
}

const METHOD_NAMES: Record<SignInMethod, string> = { password: 'a password', google: 'Google', github: 'GitHub' };
export class Accounts {
  constructor(
    private readonly pool: Pool,
    private readonly sessions: Sessions,
    private readonly throttle: LoginThrottle,
    private readonly defaultTeamId: string,
    private readonly mail: SystemMail,
    private readonly publicUrl: string,
  ) {}

  async setupNeeded(): Promise<boolean> {
    return (await userCount(this.pool)) === 0;
  }

  /** First run: the first visitor becomes the owner of the default team. */
  async setup(req: FastifyRequest, input: { email?: unknown; password?: unknown; name?: unknown }): Promise<Started> {
    const email = checkEmail(input.email);
    const password = checkPassword(input.password);
    const hash = await hashPassword(password);
    const user = await withTx(this.pool, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [SETUP_LOCK]);
      if ((await userCount(tx)) > 0) throw new AppError('forbidden', 'Setup is already done: sign in instead.');
      const u = await userInsert(tx, {
        email,
        name: typeof input.name === 'string' ? input.name.slice(0, 100) : '',
        passwordHash: hash,
        verified: true,
      });
      await memberAdd(tx, this.defaultTeamId, u.id, 'owner');
      return u;
    });
    return this.start(req, user, undefined, 'setup');
  }

  /** Password sign-in; throttled per account, per account and client address, per address (throttle.ts). */
  async login(req: FastifyRequest, input: { email?: unknown; password?: unknown }): Promise<Started> {
    const email = typeof input.email === 'string' ? input.email.trim() : '';
    const password = typeof input.password === 'string' ? input.password : '';
    const user = email ? await userFindByEmail(this.pool, email) : undefined;
    const attempt = await this.throttle.begin(this.throttle.passwordKeys(email, req.ip, user?.totp_enabled === true));
    const ok = await verifyPassword(password, user?.password_hash ?? null);
    if (!user || !ok) {
      this.throttle.failed(attempt);
      // An address with no account belongs to no team: nothing to record it in. Not awaited: the
      // answer must take as long for a known address as for an unknown one (no account probing).
      if (user)
        auditSignInFailed(this.pool, user.id, { userId: user.id, email: user.email }, originOf(req), 'password').catch(
          (err) => req.log.error({ err }, 'the audit entry of a failed sign-in was not written'),
        );
      throw new AppError('invalid_credentials');
    }
    await this.throttle.succeed(attempt.counted);
    if (!user.email_verified)
      throw new AppError('forbidden', `Confirm your email address first: open the link we sent to ${user.email}.`);
    return this.start(req, user);
  }

  /** A session for a user who proved who they are (password or OAuth); pending when TOTP is on. */
  async start(
    req: FastifyRequest,
    user: UserRow,
    preferTeamId?: string,
    how: 'password' | 'oauth' | 'setup' | 'email_link' = 'password',
    provider?: 'google' | 'github',
  ): Promise<Started> {
    if (!user.email_verified)
      throw new AppError('forbidden', `Confirm your email address first: open the link we sent to ${user.email}.`);
    const teams = await membershipsOfUser(this.pool, user.id);
    if (!teams.length)
      throw new AppError('forbidden', 'This account is not a member of any team. Ask an owner for an invite.');
    // The team's allowed sign-in methods: the session opens in a team that allows this one.
    const method: SignInMethod = how === 'oauth' ? (provider ?? 'github') : 'password';
    const allowing = teams.filter((t) => t.sign_in_methods.includes(method));
    if (!allowing.length)
      throw new AppError('forbidden', `Your team does not allow signing in with ${METHOD_NAMES[method]}.`);
    const team = allowing.find((t) => t.team_id === preferTeamId) ?? allowing[0];
    // Signed in once the session exists; with TOTP on, only when the second factor completes it.
    const s = await withTx(this.pool, async (tx) => {
      const s = await this.sessions.create(req, user.id, team.team_id, user.totp_enabled, method, tx);
      if (!user.totp_enabled)
        await auditRecord(tx, team.team_id, userActor({ userId: user.id, email: user.email }, originOf(req)), {
          action: 'auth.signed_in',
          target: { kind: 'user', id: user.id },
          after: { method: how, mfa: false },
        });
      return s;
    });
    return { mfa_required: user.totp_enabled, csrf: s.csrf, cookies: s.cookies };
  }

  async changePassword(auth: SessionAuth, current: unknown, next: unknown): Promise<void> {
    const user = await userFindById(this.pool, auth.userId);
    if (!user) throw new AppError('not_signed_in');
    if (user.password_hash && !(await verifyPassword(typeof current === 'string' ? current : '', user.password_hash)))
      throw new AppError('invalid_credentials', 'The current password is incorrect.');
    await userSetPassword(this.pool, user.id, await hashPassword(checkPassword(next)));
    await sessionDeleteAllOfUser(this.pool, user.id, auth.sessionId); // other devices sign in again
  }

  async invite(
    auth: SessionAuth,
    role: unknown,
    email: unknown,
    baseUrl: string,
    origin: RequestOrigin,
  ): Promise<{ id: string; url: string; expires_at: string }> {
    if (role !== 'admin' && role !== 'member')
      throw new AppError('validation_error', 'Invite role must be "admin" or "member".');
    const bound = email === undefined || email === null || email === '' ? null : checkEmail(email);
    const token = randomToken(32);
    const expiresAt = new Date(Date.now() + INVITE_DAYS * 86400_000);
    const id = await withTx(this.pool, async (tx) => {
      const id = await inviteInsert(tx, {
        teamId: auth.teamId,
        tokenHash: sha256Hex(token),
        role,
        email: bound,
        createdBy: auth.userId,
        expiresAt,
      });
      await auditRecord(tx, auth.teamId, userActor(auth, origin), {
        action: 'member.invited',
        target: { kind: 'invite', id },
        after: { role, email: bound, expires_at: expiresAt.toISOString() },
      });
      return id;
    });
    return { id, url: `${baseUrl}/dashboard/invite/${token}`, expires_at: expiresAt.toISOString() };
  }

  /**
   * An invite the owner hands over themself, for a server that cannot send email (no
   * MAILROOM_DASHBOARD_FROM) or an invitee who should not wait for it: an invite bound to the
   * address plus a one-time link that chooses the password for that address and joins. The link
   * is the same kind the confirmation email carries (verifyEmail): single use, hashed at rest,
   * expiring with the invite, for this address only. The address is taken on the inviter's word,
   * as an emailed confirmation would prove it; whoever holds the link got it from them. Anything
   * set on an unproven account with the address before (someone else's sign-up) is discarded
   * when it is used, as with the emailed link. An address with a proven account gets no such link:
   * its owner signs in and opens the invite link.
   */
  async inviteHandover(
    auth: SessionAuth,
    role: unknown,
    email: unknown,
    baseUrl: string,
    origin: RequestOrigin,
  ): Promise<{ id: string; url: string; expires_at: string; email: string; set_password_url: string }> {
    if (email === undefined || email === null || email === '')
      throw new AppError('validation_error', 'A set-password link is for one address: give their email.');
    const address = checkEmail(email);
    const existing = await userFindByEmail(this.pool, address);
    if (existing?.email_verified)
      throw new AppError(
        'validation_error',
        `${address} already has an account: create an invite link for them instead; they sign in and open it.`,
      );
    const inv = await this.invite(auth, role, address, baseUrl, origin);
    const user =
      existing ?? (await userInsert(this.pool, { email: address, name: '', passwordHash: null, verified: false }));
    const link = await this.newVerification(user.id, inv.id, new Date(inv.expires_at), true);
    return { ...inv, email: address, set_password_url: link };
  }

  async inviteFind(token: string): Promise<InviteRow> {
    const inv = /^[A-Za-z0-9]{32}$/.test(token) ? await inviteFindOpen(this.pool, sha256Hex(token)) : undefined;
    if (!inv) throw new AppError('not_found', 'This invite link is not valid any more. Ask for a new one.');
    return inv;
  }

  /** Adds a user to the invite's team (once; an email-bound invite only for that address). */
  async inviteJoin(token: string, user: { id: string; email: string }): Promise<{ team_id: string; role: Role }> {
    const inv = await this.inviteFind(token);
    checkInviteBinding(inv, user.email);
    return this.joinInvite(inv.id, user.id);
  }

  private async joinInvite(inviteId: string, userId: string): Promise<{ team_id: string; role: Role }> {
    return withTx(this.pool, async (tx) => {
      const joined = await inviteConsume(tx, inviteId);
      if (!joined) throw new AppError('not_found', 'This invite link is not valid any more. Ask for a new one.');
      await memberAdd(tx, joined.team_id, userId, joined.role);
      return joined;
    });
  }

  /**
   * An account from an invite link: checks the invite and its address binding before creating
   * anything, then sends a confirmation link to the address. No password is taken here: whoever
   * opens the link (the owner of the address) chooses it then (verifyEmail). An address with an
   * account nobody proved yet gets a new link (the owner may be asking now); a proven one signs in.
   * Each request sends mail, so it is throttled per address and per client.
   */
  async inviteSignup(
    token: string,
    input: { email?: unknown; name?: unknown },
    ip: string,
  ): Promise<{ verification_sent: true; email: string }> {
    const email = checkEmail(input.email);
    const inv = await this.inviteFind(token);
    checkInviteBinding(inv, email);
    if (!this.mail.available())
      throw new AppError(
        'validation_error',
        'This server cannot send email to confirm your address (MAILROOM_DASHBOARD_FROM is not set), so an account cannot be created here. Ask whoever invited you for a one-time set-password link (the Team page makes one).',
      );
    const existing = await userFindByEmail(this.pool, email);
    if (existing?.email_verified)
      throw new AppError(
        'validation_error',
        'An account with this email exists: sign in, then open the invite link again.',
      );
    await this.throttle.begin([
      { key: `signup:${email.toLowerCase()}`, max: 3 },
      { key: `signup-ip:${ip}`, max: 20 },
    ]);
    const ctx = await this.mail.context();
    const user =
      existing ??
      (await userInsert(this.pool, {
        email,
        name: typeof input.name === 'string' ? input.name.slice(0, 100) : '',
        passwordHash: null,
        verified: false,
      }));
    const link = await this.newVerification(user.id, inv.id);
    const by = !inv.invited_by_email
      ? 'A team owner'
      : inv.invited_by_name
        ? `${inv.invited_by_name} (${inv.invited_by_email})`
        : inv.invited_by_email;
    const role = inv.role === 'admin' ? 'an admin' : 'a member';
    await this.mail.send(
      {
        to: email,
        subject: `${inv.invited_by_name || inv.invited_by_email || 'A team owner'} invited you to join ${inv.team_name} on Mailroom`,
        category: 'email_verification',
        text:
          `${by} invited ${email} to join the team "${inv.team_name}" as ${role} on Mailroom at ${this.publicUrl}.\n\n` +
          `Open this link to confirm the address, choose your password and join:\n${link}\n\n` +
          `The link works once, within 24 hours. If you do not know ${by} or did not expect this, ignore this email: no password is set until you choose one.\n`,
        html:
          `<p>${escapeHtml(by)} invited ${escapeHtml(email)} to join the team <strong>${escapeHtml(inv.team_name)}</strong> as ${role} on Mailroom at ${escapeHtml(this.publicUrl)}.</p>` +
          `<p><a href="${link}">Confirm my email and choose a password</a> (works once, within 24 hours).</p>` +
          `<p>If you do not know ${escapeHtml(by)} or did not expect this, ignore this email: no password is set until you choose one.</p>`,
      },
      ctx,
    );
    return { verification_sent: true, email };
  }

  private async newVerification(
    userId: string,
    inviteId: string | null,
    expiresAt = new Date(Date.now() + VERIFY_TTL_MS),
    handedOver = false,
  ): Promise<string> {
    const token = randomToken(40);
    await emailVerificationInsert(this.pool, { tokenHash: sha256Hex(token), userId, inviteId, expiresAt, handedOver });
    return `${this.publicUrl}/dashboard/verify/${token}`;
  }

  /** What a confirmation link is for, before it is used (changes nothing): the address, the team, whether a password must be chosen. */
  async verificationView(token: string) {
    const v = VERIFY_TOKEN.test(token) ? await emailVerificationFindOpen(this.pool, sha256Hex(token)) : undefined;
    if (!v) throw new AppError('not_found', 'This confirmation link is not valid any more. Ask for a new invite.');
    const inv = v.invite_id ? await inviteFindById(this.pool, v.invite_id) : undefined;
    return {
      email: v.email,
      password_required: !v.email_verified,
      team_name: inv?.team_name ?? null,
      invited_by: inv?.invited_by_email ?? null,
    };
  }

  /**
   * Opens a confirmation link: the address is proven by whoever holds the link, who chooses the
   * password now (required unless the address was proven before); the invite, if still open, is
   * joined, and the user signed in. A missing or weak password leaves the link unused.
   */
  async verifyEmail(
    req: FastifyRequest,
    token: unknown,
    input: { password?: unknown; name?: unknown } = {},
  ): Promise<Started> {
    const hash = typeof token === 'string' && VERIFY_TOKEN.test(token) ? sha256Hex(token) : undefined;
    const open = hash ? await emailVerificationFindOpen(this.pool, hash) : undefined;
    if (!hash || !open)
      throw new AppError('not_found', 'This confirmation link is not valid any more. Ask for a new invite.');
    const passwordHash =
      open.email_verified && input.password === undefined ? null : await hashPassword(checkPassword(input.password));
    const name = typeof input.name === 'string' && input.name.trim() ? input.name.trim().slice(0, 100) : undefined;
    const used = await withTx(this.pool, async (tx) => {
      const v = await emailVerificationConsume(tx, hash);
      if (!v) return undefined;
      const wasUnproven = await userProveAddress(tx, v.user_id, passwordHash);
      if (wasUnproven) {
        if (!passwordHash) throw new AppError('validation_error', 'Choose a password of at least 10 characters.');
        if (name) await userSetName(tx, v.user_id, name);
      }
      // A handed-over link vouches for an address nobody proved; an emailed one proves it.
      if (!v.handed_over) await userSetVouched(tx, v.user_id, false);
      else if (wasUnproven) await userSetVouched(tx, v.user_id, true);
      return v;
    });
    if (!used) throw new AppError('not_found', 'This confirmation link is not valid any more. Ask for a new invite.');
    const joined = used.invite_id
      ? await this.joinInvite(used.invite_id, used.user_id).catch((err) => {
          if (err instanceof AppError && err.code === 'not_found') return undefined; // the invite was revoked or used since: the address is still proven
          throw err;
        })
      : undefined;
    const user = await userFindById(this.pool, used.user_id);
    if (!user) throw new AppError('not_found', 'This account no longer exists.');
    return this.start(req, user, joined?.team_id, 'email_link');
  }

  /** The signed-in user's security settings: second factor, linked providers, sessions. */
  async securityView(auth: SessionAuth) {
    return {
      email: auth.email,
      name: auth.name,
      totp_enabled: auth.totpEnabled,
      recovery_codes_left: auth.totpEnabled ? await recoveryCodesRemaining(this.pool, auth.userId) : 0,
      oauth_accounts: await oauthAccountsOfUser(this.pool, auth.userId),
      sessions: (await sessionsOfUser(this.pool, auth.userId)).map((s) => ({ ...s, current: s.id === auth.sessionId })),
    };
  }

  teamsOf(userId: string) {
    return membershipsOfUser(this.pool, userId);
  }

  /** Signs the user out everywhere; how many sessions ended. */
  signOutEverywhere(userId: string) {
    return sessionDeleteAllOfUser(this.pool, userId);
  }

  /** Joins an invite's team as the signed-in user and makes it the session's current team. */
  async inviteAccept(auth: SessionAuth, token: string): Promise<{ team_id: string; role: Role }> {
    const joined = await this.inviteJoin(token, { id: auth.userId, email: auth.email });
    await sessionSetTeam(this.pool, auth.sessionId, joined.team_id);
    return joined;
  }

  async switchTeam(auth: SessionAuth, teamId: unknown): Promise<void> {
    const teams = await membershipsOfUser(this.pool, auth.userId);
    const t = teams.find((m) => m.team_id === teamId);
    if (!t) throw new AppError('not_found', 'Team not found');
    if (auth.signInMethod && !t.sign_in_methods.includes(auth.signInMethod))
      throw new AppError(
        'forbidden',
        `That team does not allow signing in with ${METHOD_NAMES[auth.signInMethod]}: sign in another way.`,
      );
    await sessionSetTeam(this.pool, auth.sessionId, t.team_id);
  }
}
