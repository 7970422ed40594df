// OAuth sign-in: /start redirects to the provider; /callback checks state and PKCE (oauth.ts),
// finds the user by the linked provider account or a VERIFIED email (or creates one from an
// invite), then signs in (pending when TOTP is on) and redirects into the SPA.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../errors.js';
import type { Identity } from '../../dashboard-auth/oauth.js';
import { oauthAccountFind, oauthAccountLink } from '../../store/credentials.js';
import { userClaimUnverified, userFindByEmail, userFindById, userInsert, type UserRow } from '../../store/users.js';
import type { ApiDeps } from '../types.js';
import { dash, noStore, PUBLIC, setCookies, TAGS } from './common.js';

export default function register(app: FastifyInstance, deps: ApiDeps): void {
  const opts = (summary: string) => ({ config: PUBLIC, onRequest: noStore, schema: { tags: TAGS, summary, hide: true } });
  const back = (reply: FastifyReply, path: string) => reply.redirect(`${deps.config.publicUrl}${path}`, 302);

  app.get('/dashboard-api/oauth/:provider/start', opts('Start OAuth sign-in'), async (req, reply) => {
    const { provider } = req.params as { provider: string };
    const invite = (req.query as { invite?: string }).invite;
    const s = dash(deps).oauth.start(provider, invite && /^[A-Za-z0-9]{32}$/.test(invite) ? invite : null);
    reply.header('set-cookie', s.cookie);
    return reply.redirect(s.location, 302);
  });

  app.get('/dashboard-api/oauth/:provider/callback', opts('OAuth redirect target'), async (req, reply) => {
    const d = dash(deps);
    const { provider } = req.params as { provider: string };
    const cookies = [d.oauth.cookie('', 0)];
    try {
      const { identity, invite } = await d.oauth.finish(provider, req.query as Record<string, string>, req.headers.cookie);
      const user = await findOrCreate(provider, identity, invite);
      const s = await d.accounts.start(req, user);
      setCookies(reply, [...cookies, ...s.cookies]);
      return back(reply, s.mfa_required ? '/dashboard/login?mfa=1' : '/dashboard/emails');
    } catch (err) {
      if (!(err instanceof AppError)) deps.log.error('oauth sign-in failed', { err, provider });
      setCookies(reply, cookies);
      const msg = err instanceof AppError ? err.message : 'Sign-in failed. Try again.';
      return back(reply, `/dashboard/login?error=${encodeURIComponent(msg)}`);
    }
  });

  async function findOrCreate(provider: string, id: Identity, invite: string | null): Promise<UserRow> {
    const linked = await oauthAccountFind(deps.pool, provider, id.subject);
    if (linked) {
      const u = await userFindById(deps.pool, linked.user_id);
      if (u) return u;
    }
    if (!id.verifiedEmails.length) throw new AppError('forbidden', `Your ${provider} account has no verified email address; verify one there first.`);
    for (const email of id.verifiedEmails) {
      const u = await userFindByEmail(deps.pool, email);
      if (u) {
        // Never link to an account whose address nobody proved: whoever set its password may not own
        // the address. The provider proves it now, so the account is claimed and that password dropped.
        if (!u.email_verified) {
          await userClaimUnverified(deps.pool, u.id);
          deps.log.warn('unverified account claimed by a verified sign-in; its password was removed', { user_id: u.id, provider });
        }
        await oauthAccountLink(deps.pool, { provider, subject: id.subject, userId: u.id, email });
        if (invite && !u.email_verified) await dash(deps).accounts.inviteJoin(invite, u);
        return (await userFindById(deps.pool, u.id))!;
      }
    }
    if (!invite) throw new AppError('forbidden', `No Mailroom account uses ${id.verifiedEmails[0]}. Ask an owner for an invite link.`);
    const inv = await dash(deps).accounts.inviteFind(invite);
    const email = inv.email ? id.verifiedEmails.find((e) => e.toLowerCase() === inv.email!.toLowerCase()) : id.verifiedEmails[0];
    if (!email) throw new AppError('forbidden', `This invite is for ${inv.email}, which your ${provider} account has not verified.`);
    const u = await userInsert(deps.pool, { email, name: id.name.slice(0, 100), passwordHash: null, verified: true });
    await oauthAccountLink(deps.pool, { provider, subject: id.subject, userId: u.id, email });
    await dash(deps).accounts.inviteJoin(invite, u);
    return u;
  }
}
