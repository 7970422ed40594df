// Who a provider sign-in is: the user its provider account is linked to, or the user with one
// of its VERIFIED emails (then linked), or a new user from an invite link; never otherwise. An
// account whose address nobody proved is never linked as it is: the provider proves the address
// now, so the account is claimed and the password someone else may have set on it removed.
import { AppError } from '../errors.js';
import type { Logger } from '../lib/log.js';
import { oauthAccountFind, oauthAccountLink } from '../store/credentials.js';
import type { Pool } from '../store/db.js';
import { userClaimUnverified, userFindByEmail, userFindById, userInsert, type UserRow } from '../store/users.js';
import type { Accounts } from './accounts.js';
import type { Identity } from './oauth.js';

export async function oauthUser(
  pool: Pool,
  accounts: Accounts,
  log: Logger,
  provider: string,
  id: Identity,
  invite: string | null,
): Promise<UserRow> {
  const u = await existingUser(pool, log, provider, id);
  if (u) {
    if (invite) await accounts.inviteJoin(invite, u); // signed in through an invite link: join its team too
    return (await userFindById(pool, u.id))!;
  }
  if (!invite)
    throw new AppError(
      'forbidden',
      `No Mailroom account uses ${id.verifiedEmails[0]}. Ask an owner for an invite link.`,
    );
  const inv = await accounts.inviteFind(invite);
  const email = inv.email
    ? id.verifiedEmails.find((e) => e.toLowerCase() === inv.email!.toLowerCase())
    : id.verifiedEmails[0];
  if (!email)
    throw new AppError(
      'forbidden',
      `This invite is for ${inv.email}, which your ${provider} account has not verified.`,
    );
  const created = await userInsert(pool, { email, name: id.name.slice(0, 100), passwordHash: null, verified: true });
  await oauthAccountLink(pool, { provider, subject: id.subject, userId: created.id, email });
  await accounts.inviteJoin(invite, created);
  return created;
}

/** The user a provider identity already is: by its linked account, or by one of its verified emails (then linked; an unproven account is claimed). */
async function existingUser(pool: Pool, log: Logger, provider: string, id: Identity): Promise<UserRow | undefined> {
  const linked = await oauthAccountFind(pool, provider, id.subject);
  if (linked) {
    const u = await userFindById(pool, linked.user_id);
    if (u) return u;
  }
  if (!id.verifiedEmails.length)
    throw new AppError('forbidden', `Your ${provider} account has no verified email address; verify one there first.`);
  for (const email of id.verifiedEmails) {
    const u = await userFindByEmail(pool, email);
    if (!u) continue;
    if (!u.email_verified || u.email_vouched) {
      // Vouched: its password was chosen through a link an inviter handed over (0044), maybe not by the address's owner.
      await userClaimUnverified(pool, u.id);
      log.warn('unverified or vouched-for account claimed by a verified sign-in; its password was removed', {
        user_id: u.id,
        provider,
      });
    }
    await oauthAccountLink(pool, { provider, subject: id.subject, userId: u.id, email });
    return u;
  }
  return undefined;
}
