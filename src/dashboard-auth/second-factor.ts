// The second factor: completing a pending session with a TOTP code or a recovery code, TOTP
// enrolment and removal, and recovery codes. A code is throttled per account (throttle.ts), a TOTP
// step is accepted once, recovery codes are kept hashed and shown once. Sign-in itself (password,
// OAuth, links) is accounts.ts's.
import { userActor, type RequestOrigin } from '../audit/actor.js';
import { auditRecord } from '../audit/record.js';
import { AppError } from '../errors.js';
import type { Sealer } from '../lib/crypto.js';
import { randomToken, sha256Hex } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { recoveryCodeConsume, recoveryCodesRemaining, recoveryCodesReplace } from '../store/credentials.js';
import { membershipsOfUser, userClaimTotpStep, userFindById, userSetTotp, type UserRow } from '../store/users.js';
import type { SessionAuth, Sessions } from './sessions.js';
import { auditSignInFailed } from './sign-in-audit.js';
import type { LoginThrottle } from './throttle.js';
import { newTotpSecret, otpauthUri, verifyTotp } from './totp.js';

const RECOVERY_CODES = 10;

export const normaliseRecoveryCode = (c: string) => c.toLowerCase().replace(/[^a-z0-9]/g, '');

export class SecondFactor {
  constructor(
    private readonly pool: Pool,
    private readonly sessions: Sessions,
    private readonly sealer: Sealer,
    private readonly throttle: LoginThrottle,
  ) {}

  /** Completes a pending session with a TOTP code or a recovery code. */
  async complete(
    pending: SessionAuth,
    code: unknown,
    origin: RequestOrigin,
  ): Promise<{ csrf: string; cookies: string[]; recovery_codes_left?: number }> {
    if (typeof code !== 'string' || !code.trim())
      throw new AppError('validation_error', 'Enter the 6-digit code from your authenticator app, or a recovery code.');
    const keys = this.throttle.mfaKeys(pending.userId);
    await this.throttle.begin(keys);
    const user = await userFindById(this.pool, pending.userId);
    if (!user?.totp_enabled || !user.totp_secret)
      throw new AppError('forbidden', 'Two-factor authentication is not enabled for this account.');
    let recoveryLeft: number | undefined;
    let ok = false;
    if (/^\s*\d{6}\s*$/.test(code)) {
      ok = await this.acceptTotp(user, code);
    } else if (await recoveryCodeConsume(this.pool, user.id, sha256Hex(normaliseRecoveryCode(code)))) {
      ok = true;
      recoveryLeft = await recoveryCodesRemaining(this.pool, user.id);
    }
    if (!ok) {
      await auditSignInFailed(this.pool, user.id, pending, origin, 'second_factor');
      throw new AppError(
        'validation_error',
        'That code is not valid. Codes change every 30 seconds; each can be used once.',
      );
    }
    await this.throttle.succeed(keys);
    const s = await withTx(this.pool, async (tx) => {
      const s = await this.sessions.promote(pending.sessionId, tx);
      await auditRecord(tx, pending.teamId, userActor(pending, origin), {
        action: 'auth.signed_in',
        target: { kind: 'user', id: pending.userId },
        after: { mfa: true, factor: recoveryLeft === undefined ? 'totp' : 'recovery code' },
      });
      return s;
    });
    return { ...s, recovery_codes_left: recoveryLeft };
  }

  /** A TOTP code for the user's secret, within ±1 step, never the same step twice. */
  private async acceptTotp(user: UserRow, code: string): Promise<boolean> {
    if (!user.totp_secret) return false;
    const step = verifyTotp(this.sealer.open(user.totp_secret), code);
    return step !== null && (await userClaimTotpStep(this.pool, user.id, step));
  }

  /** Enrolment step 1: a new secret (stored sealed, not active yet) and its otpauth:// URI. */
  async totpBegin(auth: SessionAuth): Promise<{ secret: string; otpauth_uri: string }> {
    const user = await userFindById(this.pool, auth.userId);
    if (user?.totp_enabled)
      throw new AppError(
        'validation_error',
        'Two-factor authentication is already on. Turn it off first to enrol a new device.',
      );
    const secret = newTotpSecret();
    await userSetTotp(this.pool, auth.userId, this.sealer.seal(secret), false);
    return { secret, otpauth_uri: otpauthUri(secret, auth.email) };
  }

  /** Enrolment step 2: a valid code turns TOTP on; returns fresh recovery codes (shown once). */
  async totpEnable(auth: SessionAuth, code: unknown, origin: RequestOrigin): Promise<{ recovery_codes: string[] }> {
    const user = await userFindById(this.pool, auth.userId);
    if (!user?.totp_secret || user.totp_enabled) throw new AppError('validation_error', 'Start the set-up first.');
    if (typeof code !== 'string' || !(await this.acceptTotp(user, code)))
      throw new AppError(
        'validation_error',
        'That code is not valid: check the time on your device and try the current code.',
      );
    const secret = user.totp_secret;
    await withTx(this.pool, async (tx) => {
      await userSetTotp(tx, auth.userId, secret, true); // keeps the step just used: it is spent
      await this.auditMfa(tx, auth, origin, 'mfa.enrolled');
    });
    return { recovery_codes: await this.newRecoveryCodes(auth.userId) };
  }

  /** Turning TOTP off or renewing recovery codes needs a current code. */
  async totpDisable(auth: SessionAuth, code: unknown, origin: RequestOrigin): Promise<void> {
    await this.requireCurrentCode(auth, code);
    await withTx(this.pool, async (tx) => {
      await userSetTotp(tx, auth.userId, null, false);
      await recoveryCodesReplace(tx, auth.userId, []);
      await this.auditMfa(tx, auth, origin, 'mfa.removed');
    });
  }

  /**
   * MFA is the user's, so it is recorded in every team the user is a member of: in the teams' one
   * global order (membershipsOfUser's), so two users' writes never take chain heads crosswise.
   */
  private async auditMfa(
    tx: Queryable,
    auth: SessionAuth,
    origin: RequestOrigin,
    action: 'mfa.enrolled' | 'mfa.removed',
  ) {
    for (const t of await membershipsOfUser(tx, auth.userId))
      await auditRecord(tx, t.team_id, userActor(auth, origin), {
        action,
        target: { kind: 'user', id: auth.userId },
        after: { totp_enabled: action === 'mfa.enrolled' },
      });
  }

  async recoveryCodesRenew(auth: SessionAuth, code: unknown): Promise<{ recovery_codes: string[] }> {
    await this.requireCurrentCode(auth, code);
    return { recovery_codes: await this.newRecoveryCodes(auth.userId) };
  }

  private async requireCurrentCode(auth: SessionAuth, code: unknown): Promise<void> {
    const keys = this.throttle.mfaKeys(auth.userId);
    await this.throttle.begin(keys);
    const user = await userFindById(this.pool, auth.userId);
    if (!user?.totp_enabled) throw new AppError('validation_error', 'Two-factor authentication is not on.');
    if (typeof code !== 'string' || !(await this.acceptTotp(user, code)))
      throw new AppError('validation_error', 'That code is not valid.');
    await this.throttle.succeed(keys);
  }

  private async newRecoveryCodes(userId: string): Promise<string[]> {
    const codes = Array.from({ length: RECOVERY_CODES }, () => randomToken(10).toLowerCase()).map(
      (c) => `${c.slice(0, 5)}-${c.slice(5)}`,
    );
    await recoveryCodesReplace(
      this.pool,
      userId,
      codes.map((c) => sha256Hex(normaliseRecoveryCode(c))),
    );
    return codes;
  }
}
