// GET /privacy/exports and GET /privacy/erasures (the dashboard's Privacy page): the team's newest
// requests, newest first, never another team's, exports with their signed link once done; and who
// reads them: full-access keys and owners/admins, never a member's session (an export's link is
// everything held about someone) nor a sending key.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed } from '../../helpers/dashboard-client.js';
import { until } from '../../helpers/until.js';
import { teamCreate } from '../../../src/store/teams.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1', name: 'Olive Owner' };
const MO = { email: 'mo@example.com', password: 'mo-password-123' };

describe('privacy request lists', () => {
  let t: TestApp;
  let owner: DashboardClient;
  let member: DashboardClient;
  let exportId = '';
  let erasureId = '';

  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    assert.equal((await owner.post('/dashboard-api/setup', OWNER)).status, 200);
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'member', email: MO.email });
    member = new DashboardClient(t.url);
    const r = await inviteSignupConfirmed(t, member, inv.body.url.split('/').pop(), MO);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // Another team's requests are never listed.
    const other = await teamCreate(t.db.pool, 'Other');
    const otherKey = (await t.app.apiKeys.create(other.id, { name: 'o' })).token;
    assert.equal((await t.api('POST', '/privacy/exports', { key: otherKey, body: { email: 'x@y.test' } })).status, 202);
    const ex = await owner.post('/privacy/exports', { email: 'ann@dest.test' });
    assert.equal(ex.status, 202, JSON.stringify(ex.body));
    exportId = ex.body.id;
    const er = await t.api('POST', '/privacy/erasures', { body: { email: 'bob@dest.test' } });
    erasureId = er.body.id;
  });
  after(() => t?.close());

  test('the lists answer the team’s requests, an export’s link once done', async () => {
    const done = await until(
      'the export done',
      async () => {
        const r = await owner.get('/privacy/exports');
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return r.body.data[0]?.status === 'completed' ? r.body : undefined;
      },
      20_000,
    );
    assert.equal(done.object, 'list');
    assert.deepEqual(
      done.data.map((x: { id: string }) => x.id),
      [exportId],
    );
    assert.equal(done.data[0].object, 'privacy_export');
    assert.equal(done.data[0].include_attachments, false);
    assert.match(done.data[0].download_url, /\/privacy\/exports\/[0-9a-f-]+\/download\?expires=\d+&signature=/);
    const erasures = await t.api('GET', '/privacy/erasures');
    assert.equal(erasures.status, 200);
    assert.deepEqual(
      erasures.body.data.map((x: { id: string; object: string }) => [x.id, x.object]),
      [[erasureId, 'privacy_erasure']],
    );
    assert.ok(!JSON.stringify(erasures.body).includes('bob@dest.test'), 'never the address');
  });

  test("a member's session reads none of them; a sending key neither", async () => {
    for (const p of [
      '/privacy/exports',
      `/privacy/exports/${exportId}`,
      '/privacy/erasures',
      `/privacy/erasures/${erasureId}`,
    ]) {
      const r = await member.get(p);
      assert.equal(r.status, 403, `${p}: ${JSON.stringify(r.body)}`);
      assert.match(r.body.message, /Only owners and admins/);
      assert.equal((await owner.get(p)).status, 200, p);
    }
    assert.equal((await member.get('/privacy/retention')).status, 200, 'members see the retention settings');
    const sending = await t.resend.apiKeys.create({ name: 's', permission: 'sending_access' });
    assert.equal((await t.api('GET', '/privacy/exports', { key: sending.data!.token })).status, 401);
  });
});
