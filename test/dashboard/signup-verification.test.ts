import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import fs from 'node:fs';
import path from 'node:path';
import {
  confirmationToken,
  DashboardClient,
  inviteSignupConfirmed,
  systemMailTo,
} from '../helpers/dashboard-client.js';
import { startFakeOAuth, type FakeOAuth } from '../helpers/fake-oauth.js';
import { closeAll } from '../helpers/close-all.js';
import { SRC } from '../helpers/root.js';

const SECRET = 'fake-client-secret';
const OWNER = { email: 'owner@company.test', password: 'owner-password-1' };

describe('a password is chosen only by whoever proves the address', () => {
  let t: TestApp;
  let gh: FakeOAuth;
  let owner: DashboardClient;
  before(async () => {
    gh = await startFakeOAuth(SECRET);
    t = await startTestApp({
      deliveryMode: 'capture',
      dashboardFrom: 'Mailroom <no-reply@mailroom.test>',
      githubClientId: 'gh-client',
      githubClientSecret: SECRET,
      githubOauthUrl: gh.url,
      githubApiUrl: gh.url,
    });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    await owner.post('/dashboard-api/setup', OWNER);
  });
  after(() =>
    closeAll(
      () => t.close(),
      () => gh.close(),
    ),
  );

  const invite = async (body: object) =>
    (await owner.post('/dashboard-api/team/invites', body)).body.url.split('/').pop() as string;

  async function githubSignIn(c: DashboardClient, query = '') {
    const start = await c.get(`/dashboard-api/oauth/github/start${query}`);
    const back = await gh.authorize(start.headers.get('location')!);
    const cb = await c.get(back.pathname + back.search);
    return new URL(cb.headers.get('location')!);
  }

  test('an email-bound invite refuses another address before creating anything', async () => {
    const token = await invite({ role: 'member', email: 'bound@company.test' });
    const r = await new DashboardClient(t.url).post(`/dashboard-api/invites/${token}/signup`, {
      email: 'eve@evil.test',
    });
    assert.equal(r.status, 403);
    const { rows } = await t.db.pool.query(`SELECT 1 FROM users WHERE email = 'eve@evil.test'`);
    assert.equal(rows.length, 0, 'no account was created');
    assert.equal(await systemMailTo(t, 'eve@evil.test'), undefined);
  });

  test('sign-up takes no password: it sends a link, and the password is chosen when the link is opened', async () => {
    const token = await invite({ role: 'member' });
    const c = new DashboardClient(t.url);
    const r = await c.post(`/dashboard-api/invites/${token}/signup`, {
      email: 'nia@company.test',
      password: 'typed-at-sign-up',
      name: 'Nia',
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { verification_sent: true, email: 'nia@company.test' });
    const { rows } = await t.db.pool.query(`SELECT password_hash FROM users WHERE email = 'nia@company.test'`);
    assert.equal(rows[0].password_hash, null, 'a password typed at sign-up is not kept');
    assert.equal((await c.get('/dashboard-api/state')).body.signed_in, false);
    assert.equal(
      (
        await new DashboardClient(t.url).post('/dashboard-api/login', {
          email: 'nia@company.test',
          password: 'typed-at-sign-up',
        })
      ).status,
      401,
    );
    assert.equal((await owner.get('/dashboard-api/team')).body.members.length, 1, 'not a member yet');
    const mail = await systemMailTo(t, 'nia@company.test');
    assert.match(mail!.subject, new RegExp(`${OWNER.email} invited you to join .+ on Mailroom`));
    assert.match(
      mail!.text,
      new RegExp(`${OWNER.email} invited nia@company.test to join the team ".+" as a member`),
      'the mail says who invited and to which team',
    );
    assert.match(mail!.text, /choose your password/);
    const link = confirmationToken(mail)!;
    const view = await new DashboardClient(t.url).get(`/dashboard-api/verify/${link}`);
    assert.equal(view.status, 200);
    assert.deepEqual(
      { ...view.body, team_name: typeof view.body.team_name },
      { email: 'nia@company.test', password_required: true, team_name: 'string', invited_by: OWNER.email },
    );
    const noPassword = await c.post('/dashboard-api/verify', { token: link });
    assert.equal(noPassword.status, 422, 'a password must be chosen');
    assert.equal((await c.post('/dashboard-api/verify', { token: link, password: 'short' })).status, 422);
    const v = await c.post('/dashboard-api/verify', { token: link, password: 'nia-chosen-password' });
    assert.equal(v.status, 200, JSON.stringify(v.body));
    assert.equal((await c.get('/domains')).status, 200);
    assert.equal((await owner.get('/dashboard-api/team')).body.members.length, 2);
    assert.equal(
      (await new DashboardClient(t.url).post('/dashboard-api/verify', { token: link, password: 'another-password-1' }))
        .status,
      404,
      'the link works once',
    );
    assert.equal((await new DashboardClient(t.url).get(`/dashboard-api/verify/${link}`)).status, 404);
    assert.equal(
      (
        await new DashboardClient(t.url).post('/dashboard-api/login', {
          email: 'nia@company.test',
          password: 'nia-chosen-password',
        })
      ).status,
      200,
    );
  });

  test("the reported chain fails: an attacker's invite sign-up as the victim never gives the attacker a way in", async () => {
    // The attacker is a user of the installation with a team of their own and an unbound invite link.
    const eveInvite = await invite({ role: 'member' });
    const eve = new DashboardClient(t.url);
    assert.equal(
      (
        await inviteSignupConfirmed(t, eve, eveInvite, {
          email: 'eve@evil.test',
          password: 'eve-own-password',
          name: 'Eve',
        })
      ).status,
      200,
    );
    assert.equal((await eve.post('/dashboard-api/teams', { name: 'Eve Corp' })).status, 200);
    const eveTeamInvite = (await eve.post('/dashboard-api/team/invites', { role: 'admin' })).body.url.split('/').pop();
    // Eve signs up through it as the victim, with a password Eve knows.
    const pre = await new DashboardClient(t.url).post(`/dashboard-api/invites/${eveTeamInvite}/signup`, {
      email: 'victim@corp.test',
      password: 'eve-knows-this',
    });
    assert.equal(pre.status, 200);
    // The victim receives the genuine mail: it names Eve and Eve's team.
    const mail = (await systemMailTo(t, 'victim@corp.test'))!;
    assert.match(mail.subject, /^Eve invited you to join Eve Corp on Mailroom$/);
    assert.match(mail.text, /Eve \(eve@evil\.test\) invited victim@corp\.test to join the team "Eve Corp"/);
    // The victim opens it: the victim chooses the password.
    const victim = new DashboardClient(t.url);
    assert.equal(
      (await victim.post('/dashboard-api/verify', { token: confirmationToken(mail), password: 'victim-own-password' }))
        .status,
      200,
    );
    // Later the company invites the victim, who accepts.
    const companyInvite = await invite({ role: 'admin', email: 'victim@corp.test' });
    assert.equal((await victim.post(`/dashboard-api/invites/${companyInvite}/accept`)).status, 200);
    // Eve's password opens nothing.
    const tryIt = await new DashboardClient(t.url).post('/dashboard-api/login', {
      email: 'victim@corp.test',
      password: 'eve-knows-this',
    });
    assert.equal(tryIt.status, 401);
    assert.equal(
      (
        await new DashboardClient(t.url).post('/dashboard-api/login', {
          email: 'victim@corp.test',
          password: 'victim-own-password',
        })
      ).status,
      200,
    );
  });

  test('an address with an account nobody proved yet gets a new link on sign-up, and the owner sets the password with it', async () => {
    const first = await invite({ role: 'member' });
    assert.equal(
      (await new DashboardClient(t.url).post(`/dashboard-api/invites/${first}/signup`, { email: 'pat@company.test' }))
        .status,
      200,
    );
    const firstLink = confirmationToken(await systemMailTo(t, 'pat@company.test'));
    const second = await invite({ role: 'admin', email: 'pat@company.test' });
    const pat = new DashboardClient(t.url);
    const again = await pat.post(`/dashboard-api/invites/${second}/signup`, { email: 'pat@company.test' });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    const secondLink = confirmationToken(await systemMailTo(t, 'pat@company.test'));
    assert.notEqual(secondLink, firstLink);
    assert.equal(
      (await pat.post('/dashboard-api/verify', { token: secondLink, password: 'pat-own-password' })).status,
      200,
    );
    assert.equal((await pat.get('/dashboard-api/state')).body.user.email, 'pat@company.test');
    // The first link, opened later by the owner, joins that invite's team without asking for a password again.
    const view = await pat.get(`/dashboard-api/verify/${firstLink}`);
    assert.equal(view.body.password_required, false);
    assert.equal((await new DashboardClient(t.url).post('/dashboard-api/verify', { token: firstLink })).status, 200);
    assert.equal(
      (
        await new DashboardClient(t.url).post('/dashboard-api/login', {
          email: 'pat@company.test',
          password: 'pat-own-password',
        })
      ).status,
      200,
      'the password chosen stays',
    );
  });

  test('a password reset proves an address nobody had proven: the owner signs in with the password they set', async () => {
    const token = await invite({ role: 'member' });
    assert.equal(
      (await new DashboardClient(t.url).post(`/dashboard-api/invites/${token}/signup`, { email: 'rey@company.test' }))
        .status,
      200,
    );
    const {
      rows: [u],
    } = await t.db.pool.query(`SELECT id FROM users WHERE email = 'rey@company.test'`);
    await t.db.pool.query(
      `INSERT INTO team_members (team_id, user_id, role) SELECT team_id, $1, 'member' FROM team_members LIMIT 1`,
      [u.id],
    );
    const forgot = await new DashboardClient(t.url).post('/dashboard-api/password/forgot', {
      email: 'rey@company.test',
    });
    assert.equal(forgot.status, 200);
    assert.match(forgot.body.message, /30 minutes/, 'says how long the link lasts');
    const mail = (await systemMailTo(t, 'rey@company.test'))!;
    assert.match(mail.text, /within 30 minutes/);
    const reset = /\/dashboard\/reset\/([A-Za-z0-9]{40})/.exec(mail.text)![1];
    assert.equal(
      (
        await new DashboardClient(t.url).post('/dashboard-api/password/reset', {
          token: reset,
          password: 'rey-own-password',
        })
      ).status,
      200,
    );
    assert.equal(
      (
        await new DashboardClient(t.url).post('/dashboard-api/login', {
          email: 'rey@company.test',
          password: 'rey-own-password',
        })
      ).status,
      200,
      'not 403 "confirm your email"',
    );
  });

  test('passwords set before the address was proven are discarded by the upgrade', async () => {
    const ins = (email: string, verified: boolean) =>
      t.db.pool.query<{ id: string }>(
        `INSERT INTO users (id, email, password_hash, email_verified_at) VALUES (gen_random_uuid(), $1, 'scrypt$attacker', CASE WHEN $2 THEN now() END) RETURNING id`,
        [email, verified],
      );
    const unproven = (await ins('old-unproven@company.test', false)).rows[0].id;
    const viaLink = (await ins('old-via-link@company.test', true)).rows[0].id;
    const resetSince = (await ins('old-reset@company.test', true)).rows[0].id;
    const setup = (await ins('old-owner@company.test', true)).rows[0].id;
    for (const id of [viaLink, resetSince]) {
      await t.db.pool.query(
        `INSERT INTO email_verifications (token_hash, user_id, expires_at, used_at) VALUES (md5(random()::text), $1, now(), now())`,
        [id],
      );
    }
    await t.db.pool.query(
      `INSERT INTO password_resets (token_hash, user_id, expires_at, used_at) VALUES (md5(random()::text), $1, now() + interval '1 hour', now() + interval '1 minute')`,
      [resetSince],
    );
    const sql = fs.readFileSync(path.join(SRC, 'store/migrations/0035_passwords_set_before_proof.sql'), 'utf8');
    await t.db.pool.query(sql);
    const { rows } = await t.db.pool.query(
      `SELECT id, password_hash IS NOT NULL AS has FROM users WHERE id = ANY($1)`,
      [[unproven, viaLink, resetSince, setup]],
    );
    const has = Object.fromEntries(rows.map((r: { id: string; has: boolean }) => [r.id, r.has]));
    assert.deepEqual([has[unproven], has[viaLink], has[resetSince], has[setup]], [false, false, true, true]);
  });

  test('the confirmation mail is held by no team', async () => {
    const mail = (await systemMailTo(t, 'nia@company.test'))!;
    assert.equal((await t.resend.emails.get(mail.id)).error?.name, 'not_found');
  });

  test('an unproven account is claimed by a verified provider sign-in through an invite: the pending links stop working', async () => {
    const token = await invite({ role: 'admin' });
    const attacker = new DashboardClient(t.url);
    assert.equal(
      (await attacker.post(`/dashboard-api/invites/${token}/signup`, { email: 'victim@company.test' })).status,
      200,
    );
    const victimInvite = await invite({ role: 'admin', email: 'victim@company.test' });
    gh.identity = {
      id: '777',
      name: 'Victim',
      emails: [{ email: 'victim@company.test', verified: true, primary: true }],
    };
    const victim = new DashboardClient(t.url);
    const to = await githubSignIn(victim, `?invite=${victimInvite}`);
    assert.equal(to.pathname, '/dashboard/emails', to.toString());
    assert.equal((await victim.get('/domains')).status, 200, 'the victim is in the team');
    const { rows } = await t.db.pool.query(
      `SELECT count(*)::int AS n FROM email_verifications v JOIN users u ON u.id = v.user_id WHERE u.email = 'victim@company.test' AND v.used_at IS NULL`,
    );
    assert.equal(rows[0].n, 0);
  });

  test('a confirmed user signing in with GitHub through an invite link joins its team', async () => {
    const other = await owner.post('/dashboard-api/teams', { name: 'Second team' });
    assert.equal(other.status, 200);
    const secondInvite = (await owner.post('/dashboard-api/team/invites', { role: 'member' })).body.url
      .split('/')
      .pop();
    // victim@company.test is proven and linked to GitHub 777 (the test above); signs in through the link.
    const c = new DashboardClient(t.url);
    assert.equal((await githubSignIn(c, `?invite=${secondInvite}`)).pathname, '/dashboard/emails');
    const teams = (await c.get('/dashboard-api/state')).body.teams as { name: string }[];
    assert.ok(
      teams.some((x) => x.name === 'Second team'),
      JSON.stringify(teams),
    );
  });

  test('without system mail, password sign-up from an invite is refused with the reason', async () => {
    const t2 = await startTestApp();
    try {
      const o = new DashboardClient(t2.url);
      await o.post('/dashboard-api/setup', OWNER);
      const token = (await o.post('/dashboard-api/team/invites', { role: 'member' })).body.url.split('/').pop();
      const r = await new DashboardClient(t2.url).post(`/dashboard-api/invites/${token}/signup`, {
        email: 'x@company.test',
      });
      assert.equal(r.status, 422);
      assert.match(r.body.message, /MAILROOM_DASHBOARD_FROM/);
    } finally {
      await t2.close();
    }
  });

  test("a password set through a handed-over link does not survive the address owner's provider sign-in", async () => {
    // The inviter vouches for the address; they could have opened the link themselves. The real
    // owner of the address signing in with a verified provider email claims the account: the
    // password chosen through the handed-over link is removed and its sessions end.
    const r = await owner.post('/dashboard-api/team/invites', { handover: true, email: 'handed@company.test' });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const token = String(r.body.set_password_url).split('/').pop();
    const holder = new DashboardClient(t.url);
    const opened = await holder.post('/dashboard-api/verify', { token, password: 'holder-password-1' });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal((await holder.get('/domains')).status, 200, 'the holder joined the team');
    gh.identity = {
      id: '888',
      name: 'Handed',
      emails: [{ email: 'handed@company.test', verified: true, primary: true }],
    };
    const real = new DashboardClient(t.url);
    assert.equal((await githubSignIn(real)).pathname, '/dashboard/emails');
    assert.equal((await holder.get('/domains')).status, 401, "the holder's session ended");
    const again = await new DashboardClient(t.url).post('/dashboard-api/login', {
      email: 'handed@company.test',
      password: 'holder-password-1',
    });
    assert.equal(again.status, 401, JSON.stringify(again.body));
  });

  test('the helper used by other tests really goes through the link', async () => {
    const token = await invite({ role: 'member' });
    const c = new DashboardClient(t.url);
    assert.equal(
      (await inviteSignupConfirmed(t, c, token, { email: 'ola@company.test', password: 'ola-password-12' })).status,
      200,
    );
    assert.equal((await c.get('/dashboard-api/state')).body.user.email, 'ola@company.test');
  });
});
