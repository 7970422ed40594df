// One audit entry checked for each family of administrative action, each done through the
// interface a user has: the real `resend` SDK (API keys, domains, webhooks, broadcasts,
// automations, OAuth grants) and the dashboard's own API (members, MFA, sign-ins, consent).
// Every entry names its actor, the client address and user agent; no entry holds a secret.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Resend } from 'resend';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { teamCreate } from '../../src/store/teams.js';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';
import { totp } from '../../src/dashboard-auth/totp.js';
import { until } from '../helpers/until.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };
const MEMBER = { email: 'member@example.com', password: 'member-password-1' };
const REDIRECT = 'http://127.0.0.1:9/callback';

interface Entry {
  id: string;
  action: string;
  actor: { kind: string; id: string | null; display: string | null };
  ip: string | null;
  user_agent: string | null;
  target: { kind: string; id: string | null };
  summary: { before?: Record<string, unknown>; after?: Record<string, unknown> };
}

describe('an audit entry for every administrative action', () => {
  let t: TestApp;
  let owner: DashboardClient;
  const secrets: string[] = [];
  let keyId: string;

  before(async () => {
    t = await startTestApp({
      deliveryMode: 'capture',
      allowPrivateNetworks: true,
      dashboardFrom: 'Mailroom <no-reply@mailroom.test>',
    });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    const s = await owner.post('/dashboard-api/setup', OWNER);
    assert.equal(s.status, 200, JSON.stringify(s.body));
    keyId = (await t.db.pool.query(`SELECT id FROM api_keys WHERE name = 'Bootstrap'`)).rows[0].id;
    secrets.push(t.key, OWNER.password, MEMBER.password);
  });
  after(async () => {
    await t.close();
  });

  /** Another team's SDK client, and its audit log read with its own key. */
  async function otherTeamClient(app: TestApp, name: string) {
    const team = await teamCreate(app.db.pool, name);
    const key = (await app.app.apiKeys.create(team.id, { name })).token;
    const client = Object.assign(new Resend(key, { baseUrl: app.url }), {
      auditLog: async (): Promise<Entry[]> => (await app.api('GET', '/audit-log?limit=100', { key })).body.data,
    });
    return client;
  }

  /** The newest entries of an action (through GET /audit-log with the bootstrap key). */
  async function entries(action: string, q = ''): Promise<Entry[]> {
    const r = await t.api('GET', `/audit-log?action=${action}&limit=100${q}`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data;
  }
  const sdkActor = (e: Entry) => {
    assert.deepEqual(e.actor, { kind: 'api_key', id: keyId, display: 'Bootstrap' });
    assert.equal(e.ip, '127.0.0.1');
    assert.match(e.user_agent!, /^resend-node/);
  };

  test('API keys: created, renamed, revoked, with the SDK key as actor; the token never stored', async () => {
    const k = await t.resend.apiKeys.create({ name: 'CI' });
    secrets.push(k.data!.token);
    assert.equal((await t.resend.apiKeys.update(k.data!.id, { name: 'CI 2' })).error, null);
    await t.resend.apiKeys.remove(k.data!.id);
    const [created] = await entries('api_key.created', `&target_id=${k.data!.id}`);
    sdkActor(created);
    assert.deepEqual(created.summary, { after: { name: 'CI', permission: 'full_access', domain_id: null } });
    const [updated] = await entries('api_key.updated', `&target_id=${k.data!.id}`);
    sdkActor(updated);
    assert.deepEqual(updated.summary, { before: { name: 'CI' }, after: { name: 'CI 2' } });
    const [revoked] = await entries('api_key.revoked', `&target_id=${k.data!.id}`);
    sdkActor(revoked);
    assert.deepEqual(revoked.target, { kind: 'api_key', id: k.data!.id });
  });

  test('domains: added, changed, verified, removed', async () => {
    const d = (await t.resend.domains.create({ name: 'audit.example.com' })).data!;
    await t.resend.domains.update({ id: d.id, clickTracking: true });
    await t.resend.domains.verify(d.id);
    const [created] = await entries('domain.created', `&target_id=${d.id}`);
    sdkActor(created);
    assert.equal(created.summary.after!.name, 'audit.example.com');
    const [updated] = await entries('domain.updated', `&target_id=${d.id}`);
    assert.equal(updated.summary.before!.click_tracking, false);
    assert.equal(updated.summary.after!.click_tracking, true);
    const [verified] = await entries('domain.verified', `&target_id=${d.id}`);
    assert.equal(verified.summary.after!.status, 'verified');
    sdkActor(verified);
    const other = (await t.resend.domains.create({ name: 'gone.example.com' })).data!;
    await t.resend.domains.remove(other.id);
    const [deleted] = await entries('domain.deleted', `&target_id=${other.id}`);
    assert.equal(deleted.summary.before!.name, 'gone.example.com');
    const { rows } = await t.db.pool.query('SELECT dkim_private_key FROM domains WHERE id = $1', [d.id]);
    if (rows[0]?.dkim_private_key) secrets.push(rows[0].dkim_private_key);
  });

  test("domains: claimed (a claim on another team's domain is logged in the claimant's team only)", async () => {
    const other = await otherTeamClient(t, 'Claimant');
    const held = (await t.resend.domains.create({ name: 'held.example.com' })).data!;
    const c = await other.domains.claims.create({ name: 'held.example.com' });
    assert.equal(c.error, null, JSON.stringify(c.error));
    const theirs = await other.auditLog();
    const claimed = theirs.find((e) => e.action === 'domain.claimed')!;
    assert.deepEqual(claimed.target, { kind: 'domain', id: c.data!.domain_id });
    assert.equal(claimed.summary.after!.status, 'pending');
    assert.equal(claimed.actor.kind, 'api_key');
    assert.equal((await entries('domain.claimed')).length, 0, "the holder's log has no claim entry");
    assert.ok(held.id);
  });

  test('webhooks: created, updated, secret rotated, deleted; the signing secrets never stored', async () => {
    const w = await t.resend.webhooks.create({ endpoint: 'http://127.0.0.1:9/hook?token=abc', events: ['email.sent'] });
    assert.equal(w.error, null, JSON.stringify(w.error));
    secrets.push(w.data!.signing_secret, 'token=abc');
    assert.equal((await t.resend.webhooks.update(w.data!.id, { events: ['email.sent', 'email.bounced'] })).error, null);
    const rotated = await t.resend.webhooks.rotateSigningSecret(w.data!.id);
    assert.equal(rotated.error, null, JSON.stringify(rotated.error));
    secrets.push((rotated.data as unknown as { signing_secret: string }).signing_secret);
    await t.resend.webhooks.remove(w.data!.id);
    const [created] = await entries('webhook.created', `&target_id=${w.data!.id}`);
    sdkActor(created);
    assert.equal(created.summary.after!.endpoint, 'http://127.0.0.1:9/hook?…');
    const [updated] = await entries('webhook.updated', `&target_id=${w.data!.id}`);
    assert.deepEqual(updated.summary.after!.events, ['email.sent', 'email.bounced']);
    const [rot] = await entries('webhook.secret_rotated', `&target_id=${w.data!.id}`);
    assert.ok(rot.summary.after!.previous_signs_until);
    assert.equal((await entries('webhook.deleted', `&target_id=${w.data!.id}`)).length, 1);
  });

  test('broadcasts: sent (scheduled), paused, canceled', async () => {
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'news.example.com' })).data!.id);
    const segment = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    await t.resend.contacts.create({ email: 'reader@dest.test', segments: [{ id: segment }] } as never);
    const from = 'News <news@news.example.com>';
    const b = (await t.resend.broadcasts.create({ segmentId: segment, from, subject: 'Later', text: 'x' })).data!;
    const sent = await t.resend.broadcasts.send(b.id, { scheduledAt: 'in 1 hour' });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    assert.equal((await t.api('POST', `/broadcasts/${b.id}/pause`)).status, 200); // Mailroom's: the SDK has no pause
    assert.equal((await t.resend.broadcasts.cancel(b.id)).error, null);
    const [s] = await entries('broadcast.sent', `&target_id=${b.id}`);
    sdkActor(s);
    assert.equal(s.summary.after!.status, 'scheduled');
    const [p] = await entries('broadcast.paused', `&target_id=${b.id}`);
    assert.equal(p.summary.after!.status, 'paused');
    const [c] = await entries('broadcast.canceled', `&target_id=${b.id}`);
    assert.equal(c.summary.before!.status, 'paused');
  });

  test('automations: enabled, stopped', async () => {
    const created = await t.resend.automations.create({
      name: 'Welcome',
      status: 'disabled',
      steps: [
        { key: 'start', type: 'trigger', config: { eventName: 'user.created' } },
        { key: 'wait', type: 'delay', config: { duration: '1 hour' } },
      ],
      connections: [{ from: 'start', to: 'wait' }],
    } as never);
    assert.equal(created.error, null, JSON.stringify(created.error));
    const a = { body: created.data! };
    assert.equal((await entries('automation.enabled', `&target_id=${a.body.id}`)).length, 0);
    assert.equal((await t.resend.automations.update(a.body.id, { status: 'enabled' } as never)).error, null);
    assert.equal((await t.resend.automations.stop(a.body.id)).error, null);
    const [en] = await entries('automation.enabled', `&target_id=${a.body.id}`);
    sdkActor(en);
    assert.deepEqual(en.summary, {
      before: { name: 'Welcome', status: 'disabled' },
      after: { name: 'Welcome', status: 'enabled' },
    });
    const [st] = await entries('automation.stopped', `&target_id=${a.body.id}`);
    assert.equal(st.summary.after!.status, 'disabled');
  });

  let memberId: string;
  test('members: invited, role changed, removed; the owner (a dashboard user) is the actor', async () => {
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'member', email: MEMBER.email });
    assert.equal(inv.status, 200, JSON.stringify(inv.body));
    const token = inv.body.url.split('/').pop();
    secrets.push(token);
    const m = new DashboardClient(t.url);
    const joined = await inviteSignupConfirmed(t, m, token, MEMBER);
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
    memberId = (await t.db.pool.query('SELECT id FROM users WHERE email = $1', [MEMBER.email])).rows[0].id;
    assert.equal((await owner.req('PATCH', `/dashboard-api/team/members/${memberId}`, { role: 'admin' })).status, 200);
    const [invited] = await entries('member.invited');
    assert.equal(invited.actor.kind, 'user');
    assert.equal(invited.actor.display, OWNER.email);
    assert.equal(invited.ip, '127.0.0.1');
    assert.deepEqual(invited.target, { kind: 'invite', id: inv.body.id });
    assert.equal(invited.summary.after!.email, MEMBER.email);
    const [role] = await entries('member.role_changed', `&target_id=${memberId}`);
    assert.deepEqual(role.summary, { before: { role: 'member' }, after: { role: 'admin' } });
  });

  test('sign-ins and failed sign-ins (password and second factor)', async () => {
    const c = new DashboardClient(t.url);
    assert.equal((await c.post('/dashboard-api/login', { ...MEMBER, password: 'wrong-password-9' })).status, 401);
    assert.equal((await c.post('/dashboard-api/login', MEMBER)).status, 200);
    // Written off the answer's path (an unknown address must not answer faster): wait for it.
    const [failed] = await until('the failed sign-in entry', async () => {
      const e = await entries('auth.sign_in_failed', `&target_id=${memberId}`);
      return e.length ? e : undefined;
    });
    assert.equal(failed.actor.display, MEMBER.email);
    assert.equal(failed.summary.after!.step, 'password');
    const [ok] = await entries('auth.signed_in', `&target_id=${memberId}`);
    assert.equal(ok.actor.id, memberId);
    assert.equal(ok.summary.after!.mfa, false);
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  test('MFA enrolled and removed; a second-factor sign-in is recorded when it completes', async () => {
    const s = await owner.post('/dashboard-api/account/totp/setup');
    secrets.push(s.body.secret);
    const e = await owner.post('/dashboard-api/account/totp/enable', { code: totp(s.body.secret) });
    assert.equal(e.status, 200, JSON.stringify(e.body));
    secrets.push(...e.body.recovery_codes);
    const [enrolled] = await entries('mfa.enrolled');
    assert.equal(enrolled.actor.display, OWNER.email);
    assert.deepEqual(enrolled.summary, { after: { totp_enabled: true } });

    const c = new DashboardClient(t.url);
    await c.post('/dashboard-api/login', OWNER);
    assert.equal((await c.post('/dashboard-api/login/mfa', { code: '000000' })).status, 422);
    const done = await c.post('/dashboard-api/login/mfa', { code: e.body.recovery_codes[0] });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const ownerId = enrolled.actor.id;
    const [mfaFail] = await entries('auth.sign_in_failed', `&target_id=${ownerId}`);
    assert.equal(mfaFail.summary.after!.step, 'second_factor');
    const [mfaOk] = await entries('auth.signed_in', `&target_id=${ownerId}`);
    assert.deepEqual(mfaOk.summary.after, { mfa: true, factor: 'recovery code' });

    const off = await owner.post('/dashboard-api/account/totp/disable', {
      code: totp(s.body.secret, Date.now() + 30_000),
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal((await entries('mfa.removed')).length, 1);
    await t.db.pool.query('DELETE FROM login_throttle');
  });

  /** An integration's grant: the owner approves on the consent endpoints, the client buys tokens. */
  async function oauthGrant(client: { id: string; client_secret: string }) {
    const verifier = randomBytes(32).toString('base64url');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: REDIRECT,
      scope: 'full_access',
      state: 's',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    const start = await fetch(`${t.url}/oauth/authorize?${q}`, { redirect: 'manual' });
    const consent = new URL(start.headers.get('location')!, t.url);
    const shown = await owner.get(`/dashboard-api/oauth-consent${consent.search}`);
    const team = shown.body.teams.find((x: { can_approve: boolean }) => x.can_approve);
    const ok = await owner.post('/dashboard-api/oauth-consent', {
      ...Object.fromEntries(consent.searchParams),
      team_id: team.id,
      decision: 'approve',
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const code = new URL(ok.body.redirect_to).searchParams.get('code')!;
    const tok = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicOf(client) },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: verifier,
      }),
    });
    const tokens = (await tok.json()) as { access_token: string; refresh_token: string };
    secrets.push(code, tokens.access_token, tokens.refresh_token);
    return tokens;
  }
  const basicOf = (c: { id: string; client_secret: string }) =>
    `Basic ${Buffer.from(`${c.id}:${c.client_secret}`).toString('base64')}`;

  test('OAuth grants: given on the consent page, revoked through the SDK and by the client', async () => {
    const created = await owner.post('/dashboard-api/oauth-clients', { name: 'Acme CRM', redirect_uris: [REDIRECT] });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const client = created.body as { id: string; client_secret: string };
    secrets.push(client.client_secret);
    await oauthGrant(client);
    const [given] = await entries('oauth_grant.given');
    assert.equal(given.actor.display, OWNER.email);
    assert.deepEqual(given.target, { kind: 'oauth_client', id: client.id });
    assert.equal(given.summary.after!.scope, 'full_access');
    const grant = (await t.resend.oauthGrants.list()).data!.data[0];
    assert.equal((await t.resend.oauthGrants.revoke(grant.id)).error, null);
    const [revoked] = await entries('oauth_grant.revoked', `&target_id=${grant.id}`);
    sdkActor(revoked);

    // RFC 7009: the integration hands its refresh token back; the grant is revoked by the client.
    const second = await oauthGrant(client);
    const back = await fetch(`${t.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicOf(client) },
      body: new URLSearchParams({ token: second.refresh_token }),
    });
    assert.equal(back.status, 200);
    const byClient = (await entries('oauth_grant.revoked')).find((e) => e.actor.kind === 'oauth')!;
    assert.ok(byClient, 'an entry with the grant as its actor');
    assert.equal(byClient.actor.display, 'Acme CRM');
    assert.equal(byClient.actor.id, byClient.target.id);
    assert.equal(byClient.summary.after!.reason, 'revoked_by_client');
  });

  test('members: removed (last, so the member could act before)', async () => {
    assert.equal((await owner.req('DELETE', `/dashboard-api/team/members/${memberId}`)).status, 200);
    const [removed] = await entries('member.removed', `&target_id=${memberId}`);
    assert.deepEqual(removed.summary, { before: { role: 'admin' } });
  });

  test('privacy: erasure and export requests name the request, never the address; retention changes show before and after', async () => {
    const subject = 'subject.person@example.org';
    const erasure = await t.api('POST', '/privacy/erasures', { body: { email: subject } });
    assert.equal(erasure.status, 202, JSON.stringify(erasure.body));
    const exp = await t.api('POST', '/privacy/exports', { body: { email: subject } });
    assert.equal(exp.status, 202, JSON.stringify(exp.body));
    const retention = await t.api('PATCH', '/privacy/retention', { body: { request_logs_days: 7 } });
    assert.equal(retention.status, 200, JSON.stringify(retention.body));
    const [erased] = await entries('privacy.erasure_requested');
    assert.deepEqual(erased.target, { kind: 'privacy_request', id: erasure.body.id });
    assert.equal(erased.actor.kind, 'api_key');
    const [exported] = await entries('privacy.export_requested');
    assert.deepEqual(exported.target, { kind: 'privacy_request', id: exp.body.id });
    const [changed] = await entries('privacy.retention_changed');
    assert.equal(changed.summary.after?.request_logs, 7, JSON.stringify(changed.summary));
    assert.equal(changed.summary.before?.request_logs, null, JSON.stringify(changed.summary));
    const rows = await t.db.pool.query(`SELECT count(*)::int AS n FROM audit_log WHERE audit_log::text ILIKE $1`, [
      `%${subject}%`,
    ]);
    assert.equal(rows.rows[0].n, 0, 'the address is in no audit entry');
  });

  test('an owner reads it through the session; no entry holds a secret; the chain is intact', async () => {
    const r = await owner.get('/audit-log?limit=100');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.ok(r.body.data.length > 20);
    const { rows } = await t.db.pool.query(`SELECT string_agg(to_jsonb(a)::text, ' ') AS all FROM audit_log a`);
    const all: string = rows[0].all;
    for (const s of secrets.filter(Boolean)) assert.ok(!all.includes(s), `a secret was stored: ${s.slice(0, 8)}…`);
    assert.ok(!/password_hash|token_hash|signing_secret|totp_secret/.test(all));
    const { verifyChains } = await import('../../src/audit/verify.js');
    for (const rep of await verifyChains(t.db.pool)) assert.equal(rep.problem, null, rep.team_id);
  });
});
