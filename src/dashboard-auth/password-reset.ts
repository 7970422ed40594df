// Password reset by a one-use link (valid 30 minutes; a newer link or a reset retires the others),
// sent as system mail: held by the hidden system team, so no team member or API key can read the
// link (see system-mail.ts). Answers the same whether or not the account exists.
import { AppError } from '../errors.js';
import { randomToken, sha256Hex } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';
import { passwordResetConsume, passwordResetInsert, passwordResetValid } from '../store/credentials.js';
import type { Pool } from '../store/db.js';
import { sessionDeleteAllOfUser } from '../store/sessions.js';
import { userFindByEmail, userProveAddress, userSetPassword, userSetVouched } from '../store/users.js';
import { withTx } from '../store/db.js';
import type { Config } from '../config/schema.js';
import { hashPassword, passwordProblem } from './password.js';
import type { SystemMail } from './system-mail.js';
import type { LoginThrottle } from './throttle.js';

export const RESET_TTL_MS = 30 * 60_000;
const escapeHtml = (s: string) => s.replace(/[<>&"]/g, '');
export const RESET_TTL_WORDS = `${RESET_TTL_MS / 60_000} minutes`;

export class PasswordReset {
  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
    private readonly mail: SystemMail,
    private readonly throttle: LoginThrottle,
    private readonly log: Logger,
  ) {}

  available(): boolean {
    return this.mail.available();
  }

  /** Sends a reset link when the account exists; answers the same either way (no account probing). */
  async request(email: unknown, ip: string): Promise<void> {
    if (!this.mail.available())
      throw new AppError(
        'validation_error',
        'Password reset by email is not set up on this server (MAILROOM_DASHBOARD_FROM). Ask an owner or the operator.',
      );
    if (typeof email !== 'string' || !email.includes('@'))
      throw new AppError('validation_error', 'Enter a valid email address.');
    await this.throttle.begin([
      { key: `reset:${email.toLowerCase()}`, max: 3 },
      { key: `reset-ip:${ip}`, max: 20 },
    ]); // each request sends mail
    const ctx = await this.mail.context(); // misconfiguration shows whatever the address asked
    const user = await userFindByEmail(this.pool, email.trim());
    if (!user) return;
    const token = randomToken(40);
    await passwordResetInsert(this.pool, sha256Hex(token), user.id, new Date(Date.now() + RESET_TTL_MS));
    const link = `${this.config.publicUrl}/dashboard/reset/${token}`;
    const id = await this.mail.send(
      {
        to: user.email,
        subject: 'Reset your Mailroom password',
        category: 'password_reset',
        text: `Someone asked to reset the password of your Mailroom account (${user.email}).\n\nSet a new password within ${RESET_TTL_WORDS}:\n${link}\n\nIf it was not you, ignore this email: your password stays as it is.\n`,
        html: `<p>Someone asked to reset the password of your Mailroom account (${escapeHtml(user.email)}).</p><p><a href="${link}">Set a new password</a> within ${RESET_TTL_WORDS}.</p><p>If it was not you, ignore this email: your password stays as it is.</p>`,
      },
      ctx,
    );
    this.log.info('password reset sent', { user_id: user.id, email_id: id });
  }

  async tokenValid(token: string): Promise<boolean> {
    return /^[A-Za-z0-9]{40}$/.test(token) && passwordResetValid(this.pool, sha256Hex(token));
  }

  /**
   * Sets the new password and signs the user out everywhere. The link also proves the address: an
   * account nobody had proven is now its owner's, and whatever was set on it before (a second
   * factor, by someone who maybe did not own the address) is discarded (userProveAddress).
   */
  async reset(token: unknown, password: unknown): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new AppError('validation_error', problem);
    const hash = await hashPassword(password as string);
    const done =
      typeof token === 'string' &&
      /^[A-Za-z0-9]{40}$/.test(token) &&
      (await withTx(this.pool, async (tx) => {
        const userId = await passwordResetConsume(tx, sha256Hex(token));
        if (!userId) return false;
        await userProveAddress(tx, userId, hash);
        await userSetVouched(tx, userId, false); // the reset link came by mail: the address is proven now
        await userSetPassword(tx, userId, hash);
        await sessionDeleteAllOfUser(tx, userId);
        return true;
      }));
    if (!done) throw new AppError('validation_error', 'This reset link is not valid any more. Ask for a new one.');
  }
}
