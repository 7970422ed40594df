// Password reset by a one-use link (valid one hour) sent through Mailroom's own send path, from
// MAILROOM_DASHBOARD_FROM (its domain must be verified in the team that owns it). The email is an
// ordinary email of that team (tag category=password_reset); in capture mode it lands in the Mailbox.
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { parseAddress } from '../emails/addresses.js';
import type { EmailSender } from '../emails/send.js';
import { randomToken, sha256Hex } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';
import { passwordResetConsume, passwordResetInsert, passwordResetValid } from '../store/credentials.js';
import type { Pool } from '../store/db.js';
import { domainTeamByName } from '../store/domains.js';
import { sessionDeleteAllOfUser } from '../store/sessions.js';
import { userFindByEmail, userSetPassword } from '../store/users.js';
import { hashPassword, passwordProblem } from './password.js';
import type { LoginThrottle } from './throttle.js';

const TTL_MS = 60 * 60_000;

export class PasswordReset {
  constructor(private readonly pool: Pool, private readonly config: Config, private readonly sender: EmailSender,
    private readonly throttle: LoginThrottle, private readonly log: Logger) {}

  available(): boolean {
    return Boolean(this.config.dashboardFrom);
  }

  /** Sends a reset link when the account exists; answers the same either way (no account probing). */
  async request(email: unknown, ip: string): Promise<void> {
    if (!this.config.dashboardFrom) throw new AppError('validation_error', 'Password reset by email is not set up on this server (MAILROOM_DASHBOARD_FROM). Ask an owner or the operator.');
    if (typeof email !== 'string' || !email.includes('@')) throw new AppError('validation_error', 'Enter a valid email address.');
    const keys = [{ key: `reset:${email.toLowerCase()}`, max: 3 }, { key: `reset-ip:${ip}`, max: 20 }];
    await this.throttle.check(keys);
    await this.throttle.fail(keys); // every request counts: each one sends mail
    const from = parseAddress(this.config.dashboardFrom, 'from');
    const teamId = await domainTeamByName(this.pool, from.domain);
    const ctx = { teamId: teamId ?? '00000000-0000-0000-0000-000000000000', apiKeyId: null, keyDomainId: null, source: 'api' as const };
    await this.sender.sendingDomain(ctx, from.domain); // misconfiguration shows whatever the address asked
    const user = await userFindByEmail(this.pool, email.trim());
    if (!user) return;
    const token = randomToken(40);
    await passwordResetInsert(this.pool, sha256Hex(token), user.id, new Date(Date.now() + TTL_MS));
    const link = `${this.config.publicUrl}/dashboard/reset/${token}`;
    const email_ = await this.sender.prepare(ctx, {
      from: this.config.dashboardFrom, to: [user.email], subject: 'Reset your Mailroom password',
      text: `Someone asked to reset the password of your Mailroom account (${user.email}).\n\nSet a new password within an hour:\n${link}\n\nIf it was not you, ignore this email: your password stays as it is.\n`,
      html: `<p>Someone asked to reset the password of your Mailroom account (${user.email.replace(/[<>&"]/g, '')}).</p><p><a href="${link}">Set a new password</a> within an hour.</p><p>If it was not you, ignore this email: your password stays as it is.</p>`,
      tags: [{ name: 'category', value: 'password_reset' }],
    }, { allowAttachments: false });
    await this.sender.commit(email_);
    this.log.info('password reset sent', { user_id: user.id, email_id: email_.row.id });
  }

  async tokenValid(token: string): Promise<boolean> {
    return /^[A-Za-z0-9]{40}$/.test(token) && passwordResetValid(this.pool, sha256Hex(token));
  }

  /** Sets the new password and signs the user out everywhere. */
  async reset(token: unknown, password: unknown): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new AppError('validation_error', problem);
    const userId = typeof token === 'string' && /^[A-Za-z0-9]{40}$/.test(token) ? await passwordResetConsume(this.pool, sha256Hex(token)) : undefined;
    if (!userId) throw new AppError('validation_error', 'This reset link is not valid any more. Ask for a new one.');
    await userSetPassword(this.pool, userId, await hashPassword(password as string));
    await sessionDeleteAllOfUser(this.pool, userId);
  }
}
