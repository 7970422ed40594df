// Mailroom as an OAuth 2.0 authorization server, end to end: the operator registers a client in
// the dashboard; the integration sends the browser to GET /oauth/authorize (raw HTTP), the signed-in
// owner approves on the consent endpoints (session cookie + CSRF header, as the SPA sends them),
// the code and the PKCE verifier buy tokens at POST /oauth/token; then the real `resend` SDK uses
// the access token as its API key (send, list grants), refresh tokens rotate, a rotated one
// presented again revokes the grant, and revocation through the SDK stops every token at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { Resend } from 'resend';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed } from '../../helpers/dashboard-client.js';
import { queuedId, SMTP_TEST_LISTENERS, transport } from '../../helpers/smtp-submit.js';
import { until } from '../../helpers/until.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1', name: 'Olive Owner' };
const REDIRECT = 'http://127.0.0.1:9/callback';

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

describe('OAuth grants: authorization code with PKCE, tokens as API keys, rotation, revocation', () => {
  let t: TestApp;
  let owner: DashboardClient;
  let client: { id: string; client_secret: string };
  let basic: string;

  before(async () => {
    t = await startTestApp({
      deliveryMode: 'capture',
      dashboardFrom: 'Mailroom <no-reply@mailroom.test>',
      roles: ['api', 'worker', 'smtp'],
      smtpListen: SMTP_TEST_LISTENERS,
    });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    const setup = await owner.post('/dashboard-api/setup', OWNER);
    assert.equal(setup.status, 200, JSON.stringify(setup.body));
  });
  after(async () => {
    await t.close();
  });

  /** The browser's part: authorize → consent → approve; returns the redirect the client receives. */
  async function authorize(o: { scope?: string; state?: string; challenge: string; decision?: string }) {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: client.id,
      redirect_uri: REDIRECT,
      scope: o.scope ?? 'full_access',
      state: o.state ?? 'st-1',
      code_challenge: o.challenge,
      code_challenge_method: 'S256',
    });
    const start = await fetch(`${t.url}/oauth/authorize?${q}`, { redirect: 'manual' });
    assert.equal(start.status, 302);
    const consentUrl = new URL(start.headers.get('location')!, t.url);
    assert.equal(consentUrl.pathname, '/dashboard/oauth/authorize');
    const shown = await owner.get(`/dashboard-api/oauth-consent${consentUrl.search}`);
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    const params = Object.fromEntries(consentUrl.searchParams);
    const team = shown.body.teams.find((x: { can_approve: boolean }) => x.can_approve);
    const r = await owner.post('/dashboard-api/oauth-consent', {
      ...params,
      team_id: team.id,
      decision: o.decision ?? 'approve',
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return { shown: shown.body, back: new URL(r.body.redirect_to) };
  }

  const token = async (form: Record<string, string>, o: { auth?: string | null; json?: boolean } = {}) => {
    const headers: Record<string, string> = {
      'content-type': o.json ? 'application/json' : 'application/x-www-form-urlencoded',
    };
    const auth = o.auth === undefined ? basic : o.auth;
    if (auth) headers.authorization = auth;
    const res = await fetch(`${t.url}/oauth/token`, {
      method: 'POST',
      headers,
      body: o.json ? JSON.stringify(form) : new URLSearchParams(form).toString(),
    });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  /** A full grant: authorize, approve, exchange. */
  async function grant(scope = 'full_access') {
    const p = pkce();
    const { back } = await authorize({ challenge: p.challenge, scope });
    const code = back.searchParams.get('code')!;
    const r = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return { ...r.body, code, verifier: p.verifier } as {
      access_token: string;
      refresh_token: string;
      code: string;
      verifier: string;
    };
  }

  test('the operator registers a client in the dashboard; the secret is shown once', async () => {
    const bad = await owner.post('/dashboard-api/oauth-clients', {
      name: 'Acme CRM',
      redirect_uris: ['http://example.com/cb'],
    });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /https/);
    const r = await owner.post('/dashboard-api/oauth-clients', {
      name: 'Acme CRM',
      redirect_uris: [REDIRECT],
      logo_uri: 'https://acme.example/logo.png',
    });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.match(r.body.client_secret, /^mrcs_/);
    client = r.body;
    basic = `Basic ${Buffer.from(`${client.id}:${client.client_secret}`).toString('base64')}`;
    const list = await owner.get('/dashboard-api/oauth-clients');
    assert.equal(list.body.data.length, 1);
    assert.equal(list.body.data[0].client_secret, undefined);
    assert.deepEqual(list.body.data[0].redirect_uris, [REDIRECT]);
  });

  test('GET /oauth/authorize: a redirect_uri not registered is refused to the user, never redirected to', async () => {
    const p = pkce();
    const q = (o: Record<string, string>) =>
      new URLSearchParams({
        response_type: 'code',
        client_id: client.id,
        redirect_uri: REDIRECT,
        scope: 'full_access',
        state: 'xyz',
        code_challenge: p.challenge,
        code_challenge_method: 'S256',
        ...o,
      });
    for (const redirect_uri of [`${REDIRECT}/extra`, 'http://127.0.0.1:9/callback?x=1', 'https://evil.example/cb']) {
      const r = await fetch(`${t.url}/oauth/authorize?${q({ redirect_uri })}`, { redirect: 'manual' });
      assert.equal(r.status, 400, redirect_uri);
      assert.equal(r.headers.get('location'), null);
      assert.match(await r.text(), /not valid/);
    }
    const unknown = await fetch(`${t.url}/oauth/authorize?${q({ client_id: crypto.randomUUID() })}`, {
      redirect: 'manual',
    });
    assert.equal(unknown.status, 400);
    // Other faults go back to the client with the state.
    const cases: [Record<string, string>, string][] = [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: '' }, 'invalid_request'],
      [{ scope: 'everything' }, 'invalid_scope'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
    ];
    for (const [o, error] of cases) {
      const r = await fetch(`${t.url}/oauth/authorize?${q(o)}`, { redirect: 'manual' });
      assert.equal(r.status, 302, JSON.stringify(o));
      const to = new URL(r.headers.get('location')!);
      assert.equal(`${to.origin}${to.pathname}`, REDIRECT);
      assert.equal(to.searchParams.get('error'), error, JSON.stringify(o));
      assert.equal(to.searchParams.get('state'), 'xyz');
    }
  });

  test('the consent names the client and the scope; approving needs the CSRF header; denying returns access_denied', async () => {
    const p = pkce();
    const { shown, back } = await authorize({ challenge: p.challenge, state: 'deny-me', decision: 'deny' });
    assert.equal(shown.client.name, 'Acme CRM');
    assert.equal(shown.client.logo_uri, 'https://acme.example/logo.png');
    assert.equal(shown.scope, 'full_access');
    assert.equal(shown.teams[0].role, 'owner');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), 'deny-me');
    assert.equal(back.searchParams.get('code'), null);

    const params = {
      response_type: 'code',
      client_id: client.id,
      redirect_uri: REDIRECT,
      scope: 'full_access',
      state: 's',
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
      team_id: shown.teams[0].id,
      decision: 'approve',
    };
    const noCsrf = await owner.post('/dashboard-api/oauth-consent', params, { csrf: false });
    assert.equal(noCsrf.status, 403);
    assert.match(noCsrf.body.message, /CSRF/);
    const signedOut = await new DashboardClient(t.url).post('/dashboard-api/oauth-consent', params);
    assert.equal(signedOut.status, 401);
    // The page cannot swap in another redirect URI on the way back.
    const swapped = await owner.post('/dashboard-api/oauth-consent', {
      ...params,
      redirect_uri: 'https://evil.example/',
    });
    assert.equal(swapped.status, 422);
  });

  test('code + verifier buy tokens; the SDK sends and lists grants with the access token as its key', async () => {
    const p = pkce();
    const { back } = await authorize({ challenge: p.challenge, state: 'abc' });
    assert.equal(`${back.origin}${back.pathname}`, REDIRECT);
    assert.equal(back.searchParams.get('state'), 'abc');
    const code = back.searchParams.get('code')!;
    assert.ok(code);
    const r = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.headers.get('cache-control'), 'no-store');
    assert.equal(r.body.token_type, 'Bearer');
    assert.equal(r.body.expires_in, 900);
    assert.equal(r.body.scope, 'full_access');
    assert.match(r.body.access_token, /^re_oauth_/);
    assert.match(r.body.refresh_token, /^re_refresh_/);

    const sdk = new Resend(r.body.access_token, { baseUrl: t.url });
    const sent = await sdk.emails.send({
      from: 'Acme <acme@mailroom.test>',
      to: 'someone@example.com',
      subject: 'Sent by an integration',
      text: 'hello',
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const got = await t.resend.emails.get(sent.data!.id); // the team's own key sees it: same team
    assert.equal(got.data?.subject, 'Sent by an integration');

    const grants = await sdk.oauthGrants.list();
    assert.equal(grants.error, null, JSON.stringify(grants.error));
    assert.equal(grants.data!.object, 'list');
    const g = grants.data!.data[0];
    assert.equal(g.client_id, client.id);
    assert.deepEqual(g.scopes, ['full_access']);
    assert.deepEqual(g.client, { name: 'Acme CRM', logo_uri: 'https://acme.example/logo.png' });
    assert.equal(g.revoked_at, null);
    assert.equal(g.revoked_reason, null);
    assert.match(g.created_at, /^\d{4}-\d{2}-\d{2} /);

    // The code is single-use: a second exchange fails and revokes what the first one obtained.
    const again = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
    });
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'invalid_grant');
    const refused = await sdk.domains.list();
    assert.equal(refused.error?.name, 'invalid_api_key');
    const listed = (await t.resend.oauthGrants.list()).data!.data.find((x) => x.id === g.id)!;
    assert.equal(listed.revoked_reason, 'authorization_code_reused');
  });

  test('two exchanges of one code at once: one answers tokens, the other invalid_grant, and the grant ends', async () => {
    const p = pkce();
    const code = (await authorize({ challenge: p.challenge })).back.searchParams.get('code')!;
    const form = { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: p.verifier };
    const both = await Promise.all([token(form), token(form)]);
    assert.deepEqual(both.map((r) => r.status).sort(), [200, 400]);
    const won = both.find((r) => r.status === 200)!.body;
    assert.equal(both.find((r) => r.status === 400)!.body.error, 'invalid_grant');
    assert.equal((await t.api('GET', '/domains', { key: won.access_token })).status, 403);
  });

  test('a sending_access grant sends but is refused elsewhere, as a sending_access key is', async () => {
    const g = await grant('sending_access');
    const sdk = new Resend(g.access_token, { baseUrl: t.url });
    const sent = await sdk.emails.send({ from: 'acme@mailroom.test', to: 'a@example.com', subject: 's', text: 't' });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const list = await sdk.oauthGrants.list();
    assert.equal(list.error?.name, 'restricted_api_key');
  });

  test('the access token is an SMTP submission password too, until its grant is revoked', async () => {
    const g = await grant('sending_access');
    const smtp = transport(t, 'tls', { pass: g.access_token });
    const info = await smtp.sendMail({
      from: 'acme@mailroom.test',
      to: 'c@example.com',
      subject: 'Over SMTP',
      text: 'x',
    });
    const id = queuedId(info.response);
    assert.equal((await t.resend.emails.get(id)).data?.subject, 'Over SMTP');
    smtp.close();
    const grantId = (await t.resend.oauthGrants.list()).data!.data.find(
      (x) => x.revoked_at === null && x.scopes[0] === 'sending_access',
    )!.id;
    assert.equal((await t.resend.oauthGrants.revoke(grantId)).error, null);
    const after = transport(t, 'tls', { pass: g.access_token });
    await assert.rejects(
      after.sendMail({ from: 'acme@mailroom.test', to: 'c@example.com', subject: 'refused', text: 'x' }),
      /535/,
    );
    after.close();
  });

  test('the token endpoint answers RFC 6749 5.2 errors', async () => {
    const p = pkce();
    const code = (await authorize({ challenge: p.challenge })).back.searchParams.get('code')!;
    const wrongSecret = await token(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT, code_verifier: p.verifier },
      { auth: `Basic ${Buffer.from(`${client.id}:nope`).toString('base64')}` },
    );
    assert.equal(wrongSecret.status, 401);
    assert.equal(wrongSecret.body.error, 'invalid_client');
    assert.match(wrongSecret.headers.get('www-authenticate')!, /^Basic/);
    const noSecret = await token(
      {
        grant_type: 'authorization_code',
        client_id: client.id,
        code,
        redirect_uri: REDIRECT,
        code_verifier: p.verifier,
      },
      { auth: null },
    );
    assert.equal(noSecret.status, 401);
    assert.equal((await token({ grant_type: 'password' })).body.error, 'unsupported_grant_type');
    assert.equal((await fetch(`${t.url}/oauth/token`)).status, 405); // the scoped routes are known to the 405 check
    const doc = (await t.api('GET', '/openapi.json', { key: null })).body;
    for (const p of ['/oauth/authorize', '/oauth/token', '/oauth/revoke', '/oauth/grants', '/oauth/grants/{id}'])
      assert.ok(doc.paths[p], p);
    assert.equal((await token({ code })).body.error, 'invalid_request');
    // A wrong verifier fails, and the code is spent with it.
    const wrongVerifier = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: pkce().verifier,
    });
    assert.equal(wrongVerifier.status, 400);
    assert.equal(wrongVerifier.body.error, 'invalid_grant');
    const after = await token({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      code_verifier: p.verifier,
    });
    assert.equal(after.body.error, 'invalid_grant');
    // redirect_uri must be the authorization request's, exactly; JSON bodies work too.
    const q = pkce();
    const code2 = (await authorize({ challenge: q.challenge })).back.searchParams.get('code')!;
    const otherUri = await token(
      { grant_type: 'authorization_code', code: code2, redirect_uri: `${REDIRECT}/`, code_verifier: q.verifier },
      { json: true },
    );
    assert.equal(otherUri.body.error, 'invalid_grant');
    assert.match(otherUri.body.error_description, /redirect_uri/);
  });

  test('refresh tokens rotate; a rotated one presented again revokes the grant and all its tokens', async () => {
    const g = await grant();
    const r1 = await token({ grant_type: 'refresh_token', refresh_token: g.refresh_token });
    assert.equal(r1.status, 200, JSON.stringify(r1.body));
    assert.notEqual(r1.body.refresh_token, g.refresh_token);
    assert.notEqual(r1.body.access_token, g.access_token);
    const fresh = new Resend(r1.body.access_token, { baseUrl: t.url });
    assert.equal((await fresh.domains.list()).error, null);
    const r2 = await token({ grant_type: 'refresh_token', refresh_token: r1.body.refresh_token });
    assert.equal(r2.status, 200);
    // Replaying the first refresh token: refused, and the grant ends.
    const replay = await token({ grant_type: 'refresh_token', refresh_token: g.refresh_token });
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    for (const access of [g.access_token, r1.body.access_token, r2.body.access_token]) {
      const r = await t.api('GET', '/domains', { key: access });
      assert.equal(r.status, 403, access);
      assert.equal(r.body.name, 'invalid_api_key');
    }
    const latest = await token({ grant_type: 'refresh_token', refresh_token: r2.body.refresh_token });
    assert.equal(latest.body.error, 'invalid_grant');
    const grants = (await t.resend.oauthGrants.list()).data!.data;
    assert.ok(grants.some((x) => x.revoked_reason === 'refresh_token_reused'));
  });

  test('revoking through the SDK stops the access and refresh tokens of the grant at once', async () => {
    const g = await grant();
    const sdk = new Resend(g.access_token, { baseUrl: t.url });
    const mine = (await sdk.oauthGrants.list()).data!.data.find((x) => x.revoked_at === null)!;
    const other = await grant(); // another grant of the same client stays
    const revoked = await t.resend.oauthGrants.revoke(mine.id);
    assert.equal(revoked.error, null, JSON.stringify(revoked.error));
    assert.equal(revoked.data!.object, 'oauth_grant');
    assert.equal(revoked.data!.id, mine.id);
    assert.equal(revoked.data!.revoked_reason, 'revoked_from_api');
    assert.match(revoked.data!.revoked_at, /^\d{4}-/);
    assert.equal((await sdk.domains.list()).error?.name, 'invalid_api_key');
    const refresh = await token({ grant_type: 'refresh_token', refresh_token: g.refresh_token });
    assert.equal(refresh.body.error, 'invalid_grant');
    assert.equal((await new Resend(other.access_token, { baseUrl: t.url }).domains.list()).error, null);
    const twice = await t.resend.oauthGrants.revoke(mine.id);
    assert.equal(twice.error?.name, 'not_found');
    const listed = (await t.resend.oauthGrants.list()).data!.data.find((x) => x.id === mine.id)!;
    assert.equal(listed.revoked_reason, 'revoked_from_api');
  });

  test("another team's key neither sees nor revokes this team's grants", async () => {
    const { teamCreate } = await import('../../../src/store/teams.js');
    const team = await teamCreate(t.db.pool, 'Other');
    const other = new Resend((await t.app.apiKeys.create(team.id, { name: 'o' })).token, { baseUrl: t.url });
    assert.deepEqual((await other.oauthGrants.list()).data!.data, []);
    const id = (await t.resend.oauthGrants.list()).data!.data[0].id;
    assert.equal((await other.oauthGrants.revoke(id)).error?.name, 'not_found');
  });

  test('a member can look at the consent but not grant access to the team', async () => {
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'member' });
    const member = new DashboardClient(t.url);
    const signup = await inviteSignupConfirmed(t, member, inv.body.url.split('/').pop(), {
      email: 'mia@example.com',
      password: 'member-password-1',
    });
    assert.equal(signup.status, 200, JSON.stringify(signup.body));
    const p = pkce();
    const params = {
      response_type: 'code',
      client_id: client.id,
      redirect_uri: REDIRECT,
      scope: 'full_access',
      code_challenge: p.challenge,
      code_challenge_method: 'S256',
    };
    const shown = await member.get(`/dashboard-api/oauth-consent?${new URLSearchParams(params)}`);
    assert.equal(shown.status, 200);
    assert.equal(shown.body.teams[0].can_approve, false);
    const r = await member.post('/dashboard-api/oauth-consent', {
      ...params,
      team_id: shown.body.teams[0].id,
      decision: 'approve',
    });
    assert.equal(r.status, 403);
    // Nor manage clients: only owners of the default team do.
    assert.equal((await member.get('/dashboard-api/oauth-clients')).status, 403);
  });

  test('no token reaches the request log: the OAuth endpoints are not logged', async () => {
    const g = await grant();
    const probe = `/domains/${crypto.randomUUID()}`; // a 404 of this team, found by its path
    assert.equal((await t.api('GET', probe, { key: g.access_token })).status, 404);
    // The request made with the token is logged (as any API request is), attributed to its team.
    const rows = await until('the request log to be written', async () => {
      const { rows } = await t.db.pool.query(
        'SELECT method, endpoint, team_id, request_body::text, response_body::text FROM request_logs',
      );
      return rows.some((r) => r.endpoint === probe && r.team_id) ? rows : undefined;
    });
    const all = JSON.stringify(rows);
    // (The 405 of a GET /oauth/token in an earlier test is logged as any unknown method is: no body, no secret.)
    assert.deepEqual(
      rows.filter((r) => ['/oauth/token', '/oauth/revoke'].includes(r.endpoint) && r.method !== 'GET'),
      [],
      'no POST to the token or revocation endpoint',
    );
    assert.ok(!all.includes(g.access_token) && !all.includes(g.refresh_token) && !all.includes(g.code));
  });

  test('deleting the client ends its grants and tokens', async () => {
    const g = await grant();
    const del = await owner.req('DELETE', `/dashboard-api/oauth-clients/${client.id}`);
    assert.equal(del.status, 200, JSON.stringify(del.body));
    assert.equal((await t.api('GET', '/domains', { key: g.access_token })).status, 403);
    const r = await fetch(`${t.url}/oauth/authorize?client_id=${client.id}&redirect_uri=${REDIRECT}`, {
      redirect: 'manual',
    });
    assert.equal(r.status, 400);
  });
});
