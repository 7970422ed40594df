import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import { Resend } from 'resend';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { waitForLastEvent } from '../../helpers/mail-world.js';

describe('the email API with the official SDK (capture mode)', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    for (const name of ['example.com', 'other.example']) {
      const { data } = await t.resend.domains.create({ name });
      await t.resend.domains.verify(data!.id);
    }
  });
  after(async () => {
    await t.close();
  });
  const from = 'Acme <hi@example.com>';
  const rawOf = async (id: string) =>
    (await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [id])).rows[0].raw as Buffer;

  test('send returns only {id}; get returns the record; capture mode delivers', async () => {
    const { data, error, headers } = await t.resend.emails.send({
      from,
      to: 'a@dest.test',
      subject: 'Hello',
      html: '<h1>Hi</h1>',
      replyTo: 'r@example.com',
    });
    assert.equal(error, null);
    assert.deepEqual(Object.keys(data!), ['id']);
    assert.equal(headers!['ratelimit-policy'], '1000;w=1');
    await waitForLastEvent(t, data!.id, ['delivered']);
    const got = (await t.resend.emails.get(data!.id)).data!;
    assert.deepEqual(Object.keys(got).sort(), [
      'bcc',
      'cc',
      'created_at',
      'from',
      'html',
      'id',
      'last_event',
      'message_id',
      'object',
      'reply_to',
      'scheduled_at',
      'subject',
      'tags',
      'text',
      'to',
      'topic_id',
    ]);
    assert.equal(got.object, 'email');
    assert.deepEqual(got.reply_to, ['r@example.com']);
    assert.match(got.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+\+00$/);
    assert.equal(got.scheduled_at, null);
    const parsed = await simpleParser(await rawOf(data!.id));
    assert.equal(parsed.text?.trim(), 'Hi'); // text generated from html
    assert.equal(parsed.messageId, got.message_id);
  });

  test('text "" opts out of the generated text part', async () => {
    const { data } = await t.resend.emails.send({
      from,
      to: 'a@dest.test',
      subject: 'x',
      html: '<p>only html</p>',
      text: '',
    });
    const raw = (await rawOf(data!.id)).toString();
    assert.ok(!/text\/plain/i.test(raw), 'no text/plain part');
    assert.match(raw, /text\/html/i);
  });

  test('attachments as base64, byte array and Buffer JSON arrive byte for byte; inline images by content_id', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 255]);
    const r = await t.api('POST', '/emails', {
      body: {
        from,
        to: 'a@dest.test',
        subject: 'files',
        html: '<img src="cid:logo">',
        attachments: [
          { filename: 'a.bin', content: bytes.toString('base64') },
          { filename: 'b.bin', content: [...bytes] },
          { filename: 'c.bin', content: { type: 'Buffer', data: [...bytes] } },
          { filename: 'logo.png', content: bytes.toString('base64'), inline_content_id: 'logo' },
        ],
      },
    });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const parsed = await simpleParser(await rawOf(r.body.id));
    for (const name of ['a.bin', 'b.bin', 'c.bin', 'logo.png']) {
      assert.deepEqual(parsed.attachments.find((a) => a.filename === name)?.content, bytes, name);
    }
    assert.equal(parsed.attachments.find((a) => a.filename === 'logo.png')?.contentId, '<logo>');
  });

  test('validation errors carry Resend names and name the field', async () => {
    const cases: [object, number, string, RegExp][] = [
      [{ to: 'a@dest.test', subject: 'x', text: 'x' }, 422, 'missing_required_field', /Missing `from` field/],
      [{ from, subject: 'x', text: 'x' }, 422, 'missing_required_field', /Missing `to` field/],
      [{ from, to: 'a@dest.test', text: 'x' }, 422, 'missing_required_field', /Missing `subject` field/],
      [{ from: 'not an address', to: 'a@dest.test', subject: 'x', text: 'x' }, 422, 'invalid_from_address', /`from`/],
      [{ from, to: 'nope', subject: 'x', text: 'x' }, 422, 'validation_error', /`to`/],
      [
        { from, to: Array.from({ length: 51 }, (_, i) => `u${i}@dest.test`), subject: 'x', text: 'x' },
        422,
        'validation_error',
        /`to`/,
      ],
      [
        { from, to: 'a@dest.test', subject: 'x', text: 'x', tags: [{ name: 'bad tag', value: 'v' }] },
        422,
        'validation_error',
        /tags/,
      ],
      [
        { from, to: 'a@dest.test', subject: 'x', text: 'x', attachments: [{ filename: 'a' }] },
        422,
        'invalid_attachment',
        /content.*path/,
      ],
      [{ from, to: 'a@dest.test', subject: 'x\r\nBcc: evil@x.test', text: 'x' }, 422, 'validation_error', /`subject`/],
      [
        { from, to: 'a@dest.test', subject: 'x', text: 'x', headers: { 'X-Evil': 'a\r\nBcc: evil@x.test' } },
        422,
        'validation_error',
        /headers/,
      ],
      [
        { from, to: 'a@dest.test', subject: 'x', text: 'x', scheduled_at: 'in 45 days' },
        422,
        'validation_error',
        /scheduled_at/,
      ],
      [
        { from: 'me@unverified.test', to: 'a@dest.test', subject: 'x', text: 'x' },
        403,
        'validation_error',
        /not verified/,
      ],
    ];
    for (const [body, status, name, msg] of cases) {
      const r = await t.api('POST', '/emails', { body });
      assert.equal(r.status, status, JSON.stringify(body).slice(0, 80));
      assert.equal(r.body.name, name, JSON.stringify(r.body));
      assert.match(r.body.message, msg);
    }
  });

  test('GET /emails lists newest first with cursors; an unknown id is 404 "Email not found"', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++)
      ids.push((await t.resend.emails.send({ from, to: 'l@dest.test', subject: `list ${i}`, text: 'x' })).data!.id);
    const page = (await t.resend.emails.list({ limit: 2 })).data!;
    assert.deepEqual(
      page.data.map((e) => e.id),
      [ids[2], ids[1]],
    );
    assert.equal(page.has_more, true);
    assert.ok(!('html' in page.data[0]));
    const next = (await t.resend.emails.list({ limit: 1, after: ids[1] })).data!;
    assert.deepEqual(
      next.data.map((e) => e.id),
      [ids[0]],
    );
    const r = await t.resend.emails.get('3d4f8b1e-6f43-4a8e-bb62-1f5d3c0a9e11');
    assert.deepEqual(r.error, { statusCode: 404, message: 'Email not found', name: 'not_found' });
  });

  test('batch strict: one invalid email fails the request and nothing is sent', async () => {
    const before = (await t.db.pool.query('SELECT count(*)::int AS n FROM emails')).rows[0].n;
    const { data, error } = await t.resend.batch.send([
      { from, to: 'a@dest.test', subject: 'ok', text: 'x' },
      { from: 'bad', to: 'a@dest.test', subject: 'bad', text: 'x' },
    ]);
    assert.equal(data, null);
    assert.equal(error!.name, 'invalid_from_address');
    assert.match(error!.message, /emails\[1\]/);
    assert.equal((await t.db.pool.query('SELECT count(*)::int AS n FROM emails')).rows[0].n, before);
  });

  test('batch strict success returns data in request order, without errors', async () => {
    const { data, error } = await t.resend.batch.send([
      { from, to: 'a@dest.test', subject: 'one', text: 'x' },
      { from, to: 'b@dest.test', subject: 'two', text: 'x', scheduledAt: 'in 1 hour' },
    ]);
    assert.equal(error, null);
    assert.deepEqual(Object.keys(data!), ['data']);
    assert.equal((await t.resend.emails.get(data!.data[0].id)).data!.subject, 'one');
    const second = (await t.resend.emails.get(data!.data[1].id)).data!;
    assert.equal(second.subject, 'two');
    assert.equal(second.last_event, 'scheduled');
  });

  test('batch permissive sends the valid emails and reports the invalid ones by index', async () => {
    const { data, error } = await t.resend.batch.send(
      [
        { from, to: 'a@dest.test', subject: 'ok 0', text: 'x' },
        { from, to: 'not-an-address', subject: 'bad 1', text: 'x' },
        { from, to: 'c@dest.test', subject: 'ok 2', text: 'x' },
      ],
      { batchValidation: 'permissive' },
    );
    assert.equal(error, null);
    assert.equal(data!.data.length, 2);
    assert.deepEqual(
      (data as unknown as { errors: { index: number }[] }).errors.map((e) => e.index),
      [1],
    );
  });

  test('batch limits: more than 100, attachments, not an array', async () => {
    const many = Array.from({ length: 101 }, () => ({ from, to: 'a@dest.test', subject: 'x', text: 'x' }));
    assert.equal((await t.api('POST', '/emails/batch', { body: many })).body.name, 'validation_error');
    const att = await t.api('POST', '/emails/batch', {
      body: [{ from, to: 'a@dest.test', subject: 'x', text: 'x', attachments: [{ filename: 'a', content: 'QQ==' }] }],
    });
    assert.equal(att.status, 422);
    assert.match(att.body.message, /[Aa]ttachments/);
    assert.equal((await t.api('POST', '/emails/batch', { body: { from } })).status, 422);
  });

  test('idempotency: same key and body replays the same id without sending twice', async () => {
    const payload = { from, to: 'idem@dest.test', subject: 'once', text: 'x' };
    const a = await t.resend.emails.send(payload, { idempotencyKey: 'welcome-user/1' });
    const b = await t.resend.emails.send(payload, { idempotencyKey: 'welcome-user/1' });
    assert.equal(a.data!.id, b.data!.id);
    const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM emails WHERE subject = 'once'");
    assert.equal(rows[0].n, 1);
  });

  test('idempotency: another body is 409 invalid_idempotent_request; in flight is 409 concurrent_idempotent_requests', async () => {
    await t.resend.emails.send({ from, to: 'idem@dest.test', subject: 'first', text: 'x' }, { idempotencyKey: 'k-2' });
    const changed = await t.resend.emails.send(
      { from, to: 'idem@dest.test', subject: 'changed', text: 'x' },
      { idempotencyKey: 'k-2' },
    );
    assert.equal(changed.error!.name, 'invalid_idempotent_request');
    assert.equal(changed.error!.statusCode, 409);
    await t.db.pool.query(
      `INSERT INTO idempotency_keys (team_id, method, path, key, request_hash, state) VALUES ($1, 'POST', '/emails', 'k-3', 'x', 'in_flight')`,
      [t.app.defaultTeamId],
    );
    const busy = await t.resend.emails.send(
      { from, to: 'idem@dest.test', subject: 'busy', text: 'x' },
      { idempotencyKey: 'k-3' },
    );
    assert.deepEqual(busy.error, {
      statusCode: 409,
      message: 'There is another request in progress with the same idempotency key.',
      name: 'concurrent_idempotent_requests',
    });
  });

  test('idempotency: a key over 256 characters is 400 invalid_idempotency_key; a failed request releases its key', async () => {
    const long = await t.resend.emails.send(
      { from, to: 'a@dest.test', subject: 'x', text: 'x' },
      { idempotencyKey: 'k'.repeat(257) },
    );
    assert.equal(long.error!.name, 'invalid_idempotency_key');
    assert.equal(long.error!.statusCode, 400);
    const bad = await t.resend.emails.send(
      { from: 'bad', to: 'a@dest.test', subject: 'x', text: 'x' },
      { idempotencyKey: 'k-4' },
    );
    assert.equal(bad.error!.name, 'invalid_from_address');
    const good = await t.resend.emails.send(
      { from, to: 'a@dest.test', subject: 'x', text: 'x' },
      { idempotencyKey: 'k-4' },
    );
    assert.equal(good.error, null);
  });

  test('idempotency holds across two API processes racing on one key', async () => {
    const t2 = await startTestApp({ deliveryMode: 'capture' }, { db: t.db });
    try {
      const sdk2 = new Resend(t.key, { baseUrl: t2.url });
      const payload = { from, to: 'race@dest.test', subject: 'race', text: 'x' };
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 ? sdk2 : t.resend).emails.send(payload, { idempotencyKey: 'race-1' }),
        ),
      );
      const ids = new Set(results.filter((r) => r.data).map((r) => r.data!.id));
      assert.equal(ids.size, 1);
      for (const r of results) if (r.error) assert.equal(r.error.name, 'concurrent_idempotent_requests');
      const { rows } = await t.db.pool.query("SELECT count(*)::int AS n FROM emails WHERE subject = 'race'");
      assert.equal(rows[0].n, 1);
    } finally {
      await t2.close();
    }
  });

  test('scheduling: natural language, reschedule, cancel; cancel of a sent email is 422', async () => {
    const { data } = await t.resend.emails.send({
      from,
      to: 's@dest.test',
      subject: 'later',
      text: 'x',
      scheduledAt: 'in 2 hours',
    });
    let got = (await t.resend.emails.get(data!.id)).data!;
    assert.equal(got.last_event, 'scheduled');
    const at = Date.parse(got.scheduled_at!.replace(' ', 'T').replace(/\+00$/, 'Z'));
    assert.ok(Math.abs(at - (Date.now() + 2 * 3600_000)) < 60_000);
    const upd = await t.resend.emails.update({ id: data!.id, scheduledAt: 'tomorrow at 9am' });
    assert.deepEqual(upd.data, { object: 'email', id: data!.id });
    const { rows } = await t.db.pool.query("SELECT run_at FROM jobs WHERE payload->>'email_id' = $1", [data!.id]);
    got = (await t.resend.emails.get(data!.id)).data!;
    assert.equal(
      new Date(rows[0].run_at).getTime(),
      Date.parse(got.scheduled_at!.replace(' ', 'T').replace(/\+00$/, 'Z')),
    );
    const c = await t.resend.emails.cancel(data!.id);
    assert.deepEqual(c.data, { object: 'email', id: data!.id });
    assert.equal((await t.resend.emails.get(data!.id)).data!.last_event, 'canceled');
    assert.equal(
      (await t.db.pool.query("SELECT count(*)::int AS n FROM jobs WHERE payload->>'email_id' = $1", [data!.id])).rows[0]
        .n,
      0,
    );
    assert.equal((await t.resend.emails.cancel(data!.id)).error!.statusCode, 422);
    assert.equal((await t.resend.emails.update({ id: data!.id, scheduledAt: 'in 1 hour' })).error!.statusCode, 422);
  });

  test('a sending_access key can send but not read; bound to a domain it sends only from it', async () => {
    const dom = (await t.resend.domains.list()).data!.data.find((d) => d.name === 'example.com')!;
    const key = (await t.resend.apiKeys.create({ name: 'bound', permission: 'sending_access', domain_id: dom.id }))
      .data!.token;
    const sdk = new Resend(key, { baseUrl: t.url });
    assert.equal((await sdk.emails.send({ from, to: 'a@dest.test', subject: 'x', text: 'x' })).error, null);
    assert.equal((await sdk.batch.send([{ from, to: 'a@dest.test', subject: 'x', text: 'x' }])).error, null);
    const other = await sdk.emails.send({ from: 'x@other.example', to: 'a@dest.test', subject: 'x', text: 'x' });
    assert.equal(other.error!.statusCode, 403);
    assert.equal((await sdk.emails.list()).error!.name, 'restricted_api_key');
  });

  test('suppressions: add, get by email, list by origin, remove; a suppressed address is not sent', async () => {
    const add = await t.resend.suppressions.add({ email: 'Blocked@Dest.test' });
    assert.equal(add.error, null);
    const got = (await t.resend.suppressions.get('blocked@dest.test')).data as unknown as {
      email: string;
      origin: string;
      object: string;
    };
    assert.deepEqual([got.object, got.email, got.origin], ['suppression', 'blocked@dest.test', 'manual']);
    const { data } = await t.resend.emails.send({ from, to: 'blocked@dest.test', subject: 'x', text: 'x' });
    await waitForLastEvent(t, data!.id, ['suppressed']);
    const list = (await t.api('GET', '/suppressions?origin=manual')).body;
    assert.ok(list.data.some((s: { email: string }) => s.email === 'blocked@dest.test'));
    const del = await t.resend.suppressions.remove('blocked@dest.test');
    assert.equal(del.error, null);
    assert.equal((await t.resend.suppressions.get('blocked@dest.test')).error!.name, 'not_found');
  });

  test("the SDK's template (unknown here) and topicId get a 422 naming the field, never a silent send", async () => {
    const tpl = await t.resend.emails.send({
      from: 'a@example.com',
      to: 'b@example.org',
      template: { id: 'welcome', variables: { name: 'x' } },
    } as never);
    assert.equal(tpl.error?.name, 'validation_error');
    assert.match(tpl.error!.message, /`template\.id`/);
    const topic = await t.resend.emails.send({
      from: 'a@example.com',
      to: 'b@example.org',
      subject: 's',
      text: 'x',
      topicId: 'b6d24b8e-af0b-4c3c-be0c-359bbd97381e',
    });
    assert.equal(topic.error?.name, 'validation_error');
    assert.match(topic.error!.message, /`topic_id`/);
  });
});
