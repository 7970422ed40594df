import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { otherTeamClient, startTestApp, type TestApp } from '../../helpers/harness.js';
import { teamCreate } from '../../../src/store/teams.js';
import { sleep } from '../../../src/lib/time.js';

// Up to 10 s: the recorder flushes every 250 ms, but on a loaded box (load ~10) 2.5 s was seen to
// pass before a flush landed.
// `status`: only the logs of answers with that status count (a count of all logs can be reached
// by earlier tests' requests before the one awaited is flushed).
async function waitForLogs(t: TestApp, n: number, status?: number) {
  for (let i = 0; i < 200; i++) {
    const { rows } = await t.db.pool.query(
      'SELECT count(*)::int AS n FROM request_logs WHERE team_id IS NOT NULL AND ($1::int IS NULL OR status = $1)',
      [status ?? null],
    );
    if (rows[0].n >= n) return;
    await sleep(50);
  }
  throw new Error(`fewer than ${n} logs${status ? ` with status ${status}` : ''} were written`);
}

describe('request logs', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(async () => {
    await t.close();
  });

  test('records a success and a 4xx with its error name, and masks the token in the response', async () => {
    const created = await t.resend.apiKeys.create({ name: 'logged' });
    const failed = await t.resend.domains.create({ name: 'nodot' });
    assert.equal(failed.error!.name, 'validation_error');
    await waitForLogs(t, 2);
    const list = await t.resend.logs.list();
    assert.equal(list.error, null);
    const [dom, key] = list.data!.data;
    assert.deepEqual(Object.keys(dom).sort(), [
      'created_at',
      'endpoint',
      'id',
      'method',
      'response_status',
      'user_agent',
    ]);
    assert.equal(dom.endpoint, '/domains');
    assert.equal(dom.method, 'POST');
    assert.equal(dom.response_status, 422);
    assert.match(dom.user_agent!, /^resend-node:/);
    assert.match(dom.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+\+00$/);
    const one = (await t.resend.logs.get(dom.id)).data!;
    assert.equal(one.object, 'log');
    assert.deepEqual(one.request_body, { name: 'nodot' });
    assert.equal((one.response_body as { name: string }).name, 'validation_error');
    assert.equal((one as unknown as { error_name: string }).error_name, 'validation_error');
    const k = (await t.resend.logs.get(key.id)).data!;
    assert.equal(key.endpoint, '/api-keys');
    const token = (k.response_body as { token: string }).token;
    assert.ok(token.endsWith('********'));
    assert.notEqual(token, created.data!.token);
  });

  test('attachment contents are elided from logged request bodies', async () => {
    const { sanitizeBody } = await import('../../../src/request-logs/recorder.js');
    const body = {
      from: 'a@b.co',
      attachments: [
        { filename: 'a.pdf', content: 'QUJD'.repeat(1000) },
        { content: [1, 2, 3] },
        { content: { type: 'Buffer', data: [1, 2] } },
        { path: 'https://x/y.pdf' },
      ],
    };
    assert.deepEqual(sanitizeBody(body), {
      from: 'a@b.co',
      attachments: [
        { filename: 'a.pdf', content: '[elided: 4000 base64 characters]' },
        { content: '[elided: 3 bytes]' },
        { content: '[elided: 2 bytes]' },
        { path: 'https://x/y.pdf' },
      ],
    });
  });

  test('paginates newest first and filters by status', async () => {
    for (let i = 0; i < 3; i++) await t.api('GET', '/domains');
    await t.api('GET', '/domains/3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11');
    await waitForLogs(t, 6);
    await waitForLogs(t, 1, 404);
    const p1 = (await t.resend.logs.list({ limit: 2 })).data!;
    assert.equal(p1.has_more, true);
    const p2 = (await t.resend.logs.list({ limit: 2, after: p1.data[1].id })).data!;
    assert.ok(p2.data[0].created_at <= p1.data[1].created_at);
    const notFound = (await t.api('GET', '/logs?status=404')).body;
    assert.ok(notFound.data.length >= 1);
    assert.ok(notFound.data.every((l: { response_status: number }) => l.response_status === 404));
  });

  test('filters by a status class such as 4xx, and says so when the status is not a code or a class', async () => {
    const clientErrors = (await t.api('GET', '/logs?status=4xx&limit=100')).body;
    assert.ok(clientErrors.data.length >= 1);
    assert.ok(
      clientErrors.data.every((l: { response_status: number }) => l.response_status >= 400 && l.response_status < 500),
    );
    const ok = (await t.api('GET', '/logs?status=2XX&limit=100')).body;
    assert.ok(ok.data.length >= 1 && ok.data.every((l: { response_status: number }) => l.response_status < 300));
    const bad = await t.api('GET', '/logs?status=4x');
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /4xx/);
  });

  test('the logs are flushed when the app shuts down', async () => {
    const t2 = await startTestApp();
    await t2.api('GET', '/domains');
    await t2.app.close();
    const { rows } = await t2.db.pool.query('SELECT count(*)::int AS n FROM request_logs');
    assert.ok(rows[0].n >= 1);
    await t2.close();
  });

  test("a NUL or a lone surrogate in one team's body loses no entry of any team: it is logged cleaned and the batch survives", async () => {
    const other = await teamCreate(t.db.pool, 'Neighbours');
    const otherKey = (await t.app.apiKeys.create(other.id, { name: 'n' })).token;
    const { rows: before } = await t.db.pool.query('SELECT count(*)::int AS n FROM request_logs');
    const bad = ['{"name":"nul \\u0000 here"}', '{"name":"lone \\ud800 surrogate"}', '{"\\u0000key":"x","name":"k"}'];
    const sends: Promise<unknown>[] = [];
    for (let i = 0; i < 20; i++) {
      sends.push(t.api('GET', '/domains', { key: otherKey }));
      sends.push(
        t.api('POST', '/api-keys', { raw: bad[i % bad.length], headers: { 'content-type': 'application/json' } }),
      );
    }
    await Promise.all(sends);
    const logs = t.app.requestLogs;
    assert.ok(logs, 'the api role records request logs');
    await logs.flush();
    const { rows } = await t.db.pool.query('SELECT count(*)::int AS n FROM request_logs');
    assert.equal(rows[0].n - before[0].n, 40, 'every request was logged');
    const theirs = await t.db.pool.query(`SELECT count(*)::int AS n FROM request_logs WHERE team_id = $1`, [other.id]);
    assert.equal(theirs.rows[0].n, 20);
    const { rows: cleaned } = await t.db.pool.query(
      `SELECT request_body FROM request_logs WHERE request_body::text LIKE '%\uFFFD%' ORDER BY created_at`,
    );
    assert.ok(cleaned.length >= 20, `${cleaned.length} cleaned bodies`);
    assert.ok(cleaned.some((r) => r.request_body.name === 'nul \uFFFD here'));
    assert.ok(cleaned.some((r) => r.request_body.name === 'lone \uFFFD surrogate'));
    assert.equal(logs.failed, 0);
  });
});
