// The dashboard's CSV export of the audit log: quoted cells, formula-looking cells neutralised
// (a key named "=HYPERLINK(...)" must not run in a spreadsheet), the list's filters, and the
// list's readers only (a member's session gets 403).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { DashboardClient, inviteSignupConfirmed } from '../helpers/dashboard-client.js';
import { csvCell } from '../../src/audit/csv.js';

const OWNER = { email: 'owner@example.com', password: 'owner-password-1' };
const MEMBER = { email: 'member@example.com', password: 'member-password-1' };

test('a cell starting with = + - @ gets a leading quote; quotes, commas and newlines are quoted', () => {
  assert.equal(csvCell('=1+1'), "'=1+1");
  assert.equal(csvCell('+49 30'), "'+49 30");
  assert.equal(csvCell('-2'), "'-2");
  assert.equal(csvCell('@SUM(A1)'), "'@SUM(A1)");
  assert.equal(csvCell('\t=x'), "'\t=x");
  assert.equal(csvCell('a,b'), '"a,b"');
  assert.equal(csvCell('say "hi"'), '"say ""hi"""');
  assert.equal(csvCell('=a,"b"'), `"'=a,""b"""`);
  assert.equal(csvCell(null), '');
  assert.equal(csvCell({ name: 'x' }), '"{""name"":""x""}"');
  assert.equal(csvCell('plain'), 'plain');
});

describe('GET /dashboard-api/audit-log.csv', () => {
  let t: TestApp;
  let owner: DashboardClient;
  let member: DashboardClient;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', dashboardFrom: 'Mailroom <no-reply@mailroom.test>' });
    await t.resend.domains.verify((await t.resend.domains.create({ name: 'mailroom.test' })).data!.id);
    owner = new DashboardClient(t.url);
    await owner.post('/dashboard-api/setup', OWNER);
    const inv = await owner.post('/dashboard-api/team/invites', { role: 'member', email: MEMBER.email });
    member = new DashboardClient(t.url);
    const joined = await inviteSignupConfirmed(t, member, inv.body.url.split('/').pop(), MEMBER);
    assert.equal(joined.status, 200, JSON.stringify(joined.body));
  });
  after(async () => {
    await t.close();
  });

  test('the owner downloads every entry the filters select, formulas neutralised', async () => {
    const k = await t.resend.apiKeys.create({ name: '=HYPERLINK("http://evil.test","x")' });
    assert.equal(k.error, null);
    const r = await owner.get('/dashboard-api/audit-log.csv?action=api_key.created');
    assert.equal(r.status, 200, String(r.body));
    assert.match(r.headers.get('content-type')!, /^text\/csv/);
    assert.match(r.headers.get('content-disposition')!, /^attachment; filename="audit-log-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (r.body as string).trimEnd().split('\r\n');
    assert.equal(
      lines[0],
      'created_at,seq,action,actor_kind,actor_id,actor,ip,user_agent,target_kind,target_id,before,after,id,hash',
    );
    assert.equal(lines.length, 3, 'the header, the bootstrap key and this key');
    const mine = lines.find((l) => l.includes(k.data!.id))!;
    assert.ok(mine.includes('api_key.created,api_key,'), mine);
    // The key's name sits inside the JSON of "after", which starts with {: no formula either way.
    assert.ok(mine.includes(',"{""name"":""=HYPERLINK('), mine);
    const named = await owner.get(`/dashboard-api/audit-log.csv?target_id=${k.data!.id}`);
    assert.ok((named.body as string).includes(k.data!.id));
  });

  test('an actor display that looks like a formula is neutralised in its own cell', async () => {
    const k = await t.resend.apiKeys.create({ name: '@SUM(1)' });
    const { Resend } = await import('resend');
    const evil = new Resend(k.data!.token, { baseUrl: t.url });
    const w = await evil.apiKeys.create({ name: 'made by evil' });
    const r = await owner.get(`/dashboard-api/audit-log.csv?target_id=${w.data!.id}`);
    const row = (r.body as string).split('\r\n')[1];
    assert.ok(row.includes(",'@SUM(1),"), row);
  });

  test('members get 403; a bad filter is 422 before any byte', async () => {
    const m = await member.get('/dashboard-api/audit-log.csv');
    assert.equal(m.status, 403);
    assert.equal((await member.get('/audit-log')).status, 403);
    const bad = await owner.get('/dashboard-api/audit-log.csv?since=2026-02-30');
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /`since`/);
  });
});
