import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import type { Resend } from 'resend';
import { otherTeamClient } from '../../helpers/harness.js';
import { startCaptureApp, type CaptureApp } from '../../helpers/capture-app.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { broadcastGet } from '../../helpers/mailroom-wire.js';
import { sleep } from '../../../src/lib/time.js';
import { closeAll } from '../../helpers/close-all.js';

async function until<T>(what: string, fn: () => Promise<T | undefined | false>, ms = 20_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('broadcasts through the resend SDK, in capture mode', () => {
  let t: CaptureApp;
  let other: Resend;
  let rcv: Receiver;
  let segment: string;
  let optInTopic: string; // default opt_in: everyone but those who opted out
  let optOutTopic: string; // default opt_out: only those who opted in
  const from = 'News <news@example.com>';

  before(async () => {
    t = await startCaptureApp({ broadcastPauseMinSample: 1_000_000 });
    other = await otherTeamClient(t, 'Other team');
    rcv = await startReceiver();
    const wh = await t.resend.webhooks.create({ endpoint: rcv.url, events: ['email.sent', 'email.delivered'] });
    assert.equal(wh.error, null, JSON.stringify(wh.error));
    segment = (await t.resend.segments.create({ name: 'Readers' })).data!.id;
    optInTopic = (await t.resend.topics.create({ name: 'Product news', defaultSubscription: 'opt_in' })).data!.id;
    optOutTopic = (await t.resend.topics.create({ name: 'Deals', defaultSubscription: 'opt_out' })).data!.id;
    await t.resend.contactProperties.create({ key: 'city', type: 'string', fallbackValue: 'your town' });
    const people: {
      email: string;
      firstName?: string;
      unsubscribed?: boolean;
      properties?: Record<string, string>;
      topics?: { id: string; subscription: 'opt_in' | 'opt_out' }[];
    }[] = [
      {
        email: 'ann@dest.test',
        firstName: 'Ann',
        properties: { city: 'Oslo' },
        topics: [{ id: optOutTopic, subscription: 'opt_in' }],
      },
      { email: 'bob@dest.test', firstName: 'Bob & <Co>' },
      { email: 'cy@dest.test' },
      { email: 'gone@dest.test', firstName: 'Gone', unsubscribed: true },
      { email: 'quiet@dest.test', firstName: 'Quiet', topics: [{ id: optInTopic, subscription: 'opt_out' }] },
      { email: 'bounced@dest.test', firstName: 'Bounced' },
    ];
    for (const p of people) {
      const c = await t.resend.contacts.create({
        email: p.email,
        firstName: p.firstName,
        unsubscribed: p.unsubscribed,
        properties: p.properties,
        segments: [{ id: segment }],
        topics: p.topics,
      } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
    }
    const s = await t.api('POST', '/suppressions', { body: { email: 'bounced@dest.test' } });
    assert.equal(s.status, 201, JSON.stringify(s.body));
    // Someone outside the segment never receives it.
    await t.resend.contacts.create({ email: 'outsider@dest.test' });
  });
  after(() =>
    closeAll(
      () => rcv?.close(),
      () => t?.close(),
    ),
  );

  // A broadcast email keeps no body: its MIME is rendered on read, as delivery renders it.
  const mimeOf = async (id: string) => {
    const r = await t.api('GET', `/dashboard-api/emails/${id}/raw`);
    assert.equal(r.status, 200, String(r.body).slice(0, 300));
    return simpleParser(r.body as string);
  };
  const emailsOf = async (broadcastId: string) => {
    const r = await t.api('GET', `/emails?broadcast_id=${broadcastId}&limit=100`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.data as { id: string; to: string[]; last_event: string; subject: string }[];
  };
  const waitSent = (id: string) =>
    until(`broadcast ${id} sent`, async () => {
      const b = await broadcastGet(t.resend, id);
      return b.status === 'sent' && b;
    });

  test("create answers 201 {object, id}; get shows Resend's fields in order with status draft; list shows it; another team cannot see it", async () => {
    const created = await t.resend.broadcasts.create({
      name: 'Launch',
      segmentId: segment,
      from,
      subject: 'Hello',
      html: '<p>Hi</p>',
      previewText: 'Inside: news',
    });
    assert.equal(created.error, null, JSON.stringify(created.error));
    assert.deepEqual(Object.keys(created.data!), ['object', 'id']); // Resend's API reference answers {object, id}
    const raw = await t.api('POST', '/broadcasts', { body: { segment_id: segment, from, subject: 'x', text: 'x' } });
    assert.equal(raw.status, 201);
    const got = (await t.resend.broadcasts.get(created.data!.id)).data!;
    assert.deepEqual(Object.keys(got).slice(0, 17), [
      'object',
      'id',
      'name',
      'audience_id',
      'segment_id',
      'from',
      'subject',
      'reply_to',
      'preview_text',
      'status',
      'created_at',
      'scheduled_at',
      'sent_at',
      'topic_id',
      'html',
      'text',
      'stats',
    ]);
    assert.deepEqual(
      [got.object, got.name, got.segment_id, got.audience_id, got.status, got.preview_text, got.sent_at],
      ['broadcast', 'Launch', segment, segment, 'draft', 'Inside: news', null],
    );
    assert.match(got.created_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d+\+00$/);
    const list = (await t.resend.broadcasts.list()).data!;
    const item = list.data.find((b) => b.id === got.id)!;
    assert.deepEqual(Object.keys(item).sort(), [
      'audience_id',
      'created_at',
      'id',
      'name',
      'scheduled_at',
      'segment_id',
      'sent_at',
      'status',
      'topic_id',
    ]);
    const paged = (await t.resend.broadcasts.list({ limit: 1 })).data!;
    assert.equal(paged.data.length, 1);
    assert.equal(paged.has_more, true);
    assert.equal((await other.broadcasts.get(got.id)).error?.statusCode, 404);
  });

  test('create refuses what cannot be sent, naming the field', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ from, subject: 's', html: 'h' }, /segment_id/],
      [{ segment_id: segment, subject: 's', html: 'h' }, /from/],
      [{ segment_id: segment, from, html: 'h' }, /subject/],
      [{ segment_id: segment, from, subject: 's' }, /html/],
      [{ segment_id: '5d3f1c8e-0000-4000-8000-000000000000', from, subject: 's', html: 'h' }, /segment_id.*no segment/],
      [
        { segment_id: segment, from, subject: 's', html: 'h', topic_id: '5d3f1c8e-0000-4000-8000-000000000000' },
        /topic_id/,
      ],
      [{ segment_id: segment, from: 'not an address', subject: 's', html: 'h' }, /from/],
      [{ segment_id: segment, from, subject: 's', html: 'h', scheduled_at: 'in 1 hour' }, /scheduled_at.*send/],
      [{ segment_id: segment, from, subject: 's', html: 'h', send: true, scheduled_at: 'whenever' }, /scheduled_at/],
    ];
    for (const [body, re] of cases) {
      const r = await t.api('POST', '/broadcasts', { body });
      assert.equal(r.status, 422, JSON.stringify([body, r.body]));
      assert.match(r.body.message, re);
    }
    const unverified = await t.api('POST', '/broadcasts', {
      body: { segment_id: segment, from: 'a@unverified.test', subject: 's', html: 'h', send: true },
    });
    assert.equal(unverified.status, 403);
  });

  test('sending reaches each eligible contact once, personalized, with broadcast_id on the email, its events and webhooks', async () => {
    const b = await t.resend.broadcasts.create({
      name: 'Weekly',
      segmentId: segment,
      from,
      subject: 'Hi {{{contact.first_name|friend}}}',
      html: '<p>Hello {{{FIRST_NAME|there}}} from {{{contact.city}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>',
      text: 'Hello {{{contact.first_name|there}}}. Leave: {{{RESEND_UNSUBSCRIBE_URL}}}',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const done = await waitSent(b.data!.id);
    const emails = await emailsOf(b.data!.id);
    // gone: unsubscribed from everything; bounced: suppressed; outsider: not in the segment.
    assert.deepEqual(emails.map((e) => e.to[0]).sort(), [
      'ann@dest.test',
      'bob@dest.test',
      'cy@dest.test',
      'quiet@dest.test',
    ]);
    assert.deepEqual(done.stats.skipped, { unsubscribed: 1, topic: 0, suppressed: 1 });
    assert.equal(done.stats.recipients, 4);
    assert.notEqual(done.sent_at, null);

    const ann = emails.find((e) => e.to[0] === 'ann@dest.test')!;
    const annMail = await mimeOf(ann.id);
    assert.equal(annMail.subject, 'Hi Ann');
    assert.match(
      annMail.html as string,
      /<p>Hello Ann from Oslo<\/p><a href="http:\/\/[^"]+\/u\/[a-z2-7]{45}">unsubscribe<\/a>/,
    );
    assert.match(annMail.text!, /^Hello Ann\. Leave: http:\/\/\S+\/u\/[a-z2-7]{45}/);
    assert.equal(
      annMail.headers.get('feedback-id'),
      `${b.data!.id}:${(await t.db.pool.query('SELECT team_id FROM broadcasts WHERE id = $1', [b.data!.id])).rows[0].team_id}:broadcast:mailroom`,
    );
    const bobMail = await mimeOf(emails.find((e) => e.to[0] === 'bob@dest.test')!.id);
    assert.equal(bobMail.subject, 'Hi Bob & <Co>');
    assert.match(bobMail.html as string, /Hello Bob &amp; &lt;Co&gt; from your town/);
    const cyMail = await mimeOf(emails.find((e) => e.to[0] === 'cy@dest.test')!.id);
    assert.equal(cyMail.subject, 'Hi friend');
    // Each recipient its own link.
    const links = await Promise.all(
      emails.map(async (e) => /\/u\/([a-z2-7]{45})/.exec((await mimeOf(e.id)).text!)![1]),
    );
    assert.equal(new Set(links).size, 4);
    const stored = await t.db.pool.query(
      'SELECT list_unsubscribe, list_id, source FROM emails WHERE broadcast_id = $1',
      [b.data!.id],
    );
    assert.ok(
      stored.rows.every(
        (r) =>
          r.list_unsubscribe && /^"Weekly" <[0-9a-f]{32}\.example\.com>$/.test(r.list_id) && r.source === 'broadcast',
      ),
      JSON.stringify(stored.rows[0]),
    );

    const events = await t.resend.emails.get(ann.id);
    assert.equal(events.error, null);
    // Stored: no body, only what personalizes it; GET /emails/:id renders Ann's html and text.
    const row = (
      await t.db.pool.query('SELECT html, text_body, raw, personalization FROM emails WHERE id = $1', [ann.id])
    ).rows[0];
    assert.deepEqual([row.html, row.text_body, row.raw], [null, null, null]);
    assert.deepEqual(row.personalization, { first_name: 'Ann', properties: { city: 'Oslo' } });
    assert.match(
      events.data!.html!,
      /<p>Hello Ann from Oslo<\/p><a href="http:\/\/[^"]+\/u\/[a-z2-7]{45}">unsubscribe<\/a>/,
    );
    assert.match(events.data!.text!, /^Hello Ann\. Leave: http:\/\/\S+\/u\/[a-z2-7]{45}/);
    assert.equal(events.data!.subject, 'Hi Ann');
    const hooks = await until('webhooks for the broadcast', async () => {
      const mine = rcv.received.map((r) => JSON.parse(r.body)).filter((p) => p.data.broadcast_id === b.data!.id);
      return mine.length >= 8 && mine;
    });
    assert.deepEqual(
      hooks
        .filter((h) => h.type === 'email.sent')
        .map((h) => h.data.to[0])
        .sort(),
      emails.map((e) => e.to[0]).sort(),
    );
    assert.equal(hooks.filter((h) => h.type === 'email.delivered').length, 4);
    assert.deepEqual(Object.keys(hooks[0].data).slice(0, 2), ['broadcast_id', 'created_at']);
    // email.sent as for any email (the one event builder, emails/accept.ts): Resend's fields, the email's values.
    const annSent = hooks.find((h) => h.type === 'email.sent' && h.data.to[0] === 'ann@dest.test')!;
    assert.deepEqual(Object.keys(annSent.data).sort(), [
      'broadcast_id',
      'created_at',
      'email_id',
      'from',
      'headers',
      'message_id',
      'subject',
      'tags',
      'to',
    ]);
    assert.deepEqual(
      [annSent.data.email_id, annSent.data.subject, annSent.data.from, annSent.data.tags],
      [ann.id, 'Hi Ann', from, {}],
    );
    assert.match(annSent.data.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(annSent.data.message_id, annMail.messageId);
    assert.deepEqual(annSent.data.headers, [{ name: 'Feedback-ID', value: annMail.headers.get('feedback-id') }]);
    // GET /emails?broadcast_id= lists only these; the other team sees none.
    const otherList = await other.emails.list();
    assert.equal(otherList.data!.data.length, 0);
    const bad = await t.api('GET', '/emails?broadcast_id=nope');
    assert.equal(bad.status, 422);
  });

  test("a topic limits recipients by each contact's choice, else the topic's default (opt_in and opt_out)", async () => {
    const optIn = await t.resend.broadcasts.create({
      segmentId: segment,
      from,
      subject: 'News',
      text: 'news',
      topicId: optInTopic,
      send: true,
    });
    const optOut = await t.resend.broadcasts.create({
      segmentId: segment,
      from,
      subject: 'Deals',
      text: 'deals',
      topicId: optOutTopic,
      send: true,
    });
    const a = await waitSent(optIn.data!.id);
    const b = await waitSent(optOut.data!.id);
    assert.deepEqual((await emailsOf(a.id)).map((e) => e.to[0]).sort(), [
      'ann@dest.test',
      'bob@dest.test',
      'cy@dest.test',
    ]);
    assert.deepEqual(a.stats.skipped, { unsubscribed: 1, topic: 1, suppressed: 1 });
    assert.deepEqual(
      (await emailsOf(b.id)).map((e) => e.to[0]),
      ['ann@dest.test'],
    );
    assert.deepEqual(b.stats.skipped, { unsubscribed: 1, topic: 4, suppressed: 0 }); // reasons counted in that order
    assert.equal(a.topic_id, optInTopic);
  });

  test('only drafts are edited or deleted, with errors that say why; send on a sent broadcast is refused', async () => {
    const created = await t.resend.broadcasts.create({ segmentId: segment, from, subject: 'Draft', html: '<p>x</p>' });
    const d = created.data!;
    assert.deepEqual(
      d,
      { object: 'broadcast', id: d.id },
      "create answers {object, id}, as Resend's API reference does",
    );
    const up = await t.resend.broadcasts.update(d.id, {
      subject: 'Edited',
      name: 'Renamed',
      replyTo: ['help@example.com'],
    });
    assert.equal(up.error, null, JSON.stringify(up.error));
    assert.deepEqual(up.data, { object: 'broadcast', id: d.id });
    const got = (await t.resend.broadcasts.get(d.id)).data!;
    assert.deepEqual(
      [got.subject, got.name, got.reply_to, got.html],
      ['Edited', 'Renamed', ['help@example.com'], '<p>x</p>'],
    );
    const bad = await t.resend.broadcasts.update(d.id, { from: 'nope' });
    assert.equal(bad.error?.statusCode, 422);
    assert.equal((await t.resend.broadcasts.send(d.id)).error, null);
    await waitSent(d.id);
    const edit = await t.resend.broadcasts.update(d.id, { subject: 'Too late' });
    assert.equal(edit.error?.statusCode, 422);
    assert.equal(edit.error?.name, 'validation_error');
    assert.match(edit.error!.message, /Only draft broadcasts can be edited: this broadcast is sent/);
    const del = await t.resend.broadcasts.remove(d.id);
    assert.match(del.error!.message, /Only draft or scheduled broadcasts can be deleted: this broadcast is sent/);
    const again = await t.resend.broadcasts.send(d.id);
    assert.match(again.error!.message, /Only draft broadcasts can be sent/);
    const cancel = await t.resend.broadcasts.cancel(d.id);
    assert.match(cancel.error!.message, /Only queued or scheduled broadcasts can be canceled/);

    const d2 = (await t.resend.broadcasts.create({ segmentId: segment, from, subject: 'Bye', html: 'x' })).data!;
    const removed = await t.resend.broadcasts.remove(d2.id);
    assert.deepEqual(removed.data, { object: 'broadcast', id: d2.id, deleted: true });
    assert.equal((await t.resend.broadcasts.get(d2.id)).error?.statusCode, 404);
    assert.equal((await t.resend.broadcasts.remove(d2.id)).error?.statusCode, 404);
  });

  test('a scheduled broadcast waits for its time (natural language accepted), and cancel stops it', async () => {
    const d = (await t.resend.broadcasts.create({ segmentId: segment, from, subject: 'Later', text: 'later' })).data!;
    const s = await t.resend.broadcasts.send(d.id, { scheduledAt: 'in 1 hour' });
    assert.equal(s.error, null, JSON.stringify(s.error));
    const got = await broadcastGet(t.resend, d.id);
    assert.equal(got.status, 'scheduled');
    const at = new Date(got.scheduled_at!.replace(' ', 'T').replace(/\+00$/, 'Z')).getTime();
    assert.ok(Math.abs(at - (Date.now() + 3600_000)) < 60_000, got.scheduled_at!);
    const c = await t.resend.broadcasts.cancel(d.id);
    assert.deepEqual(c.data, { object: 'broadcast', id: d.id });
    // As in Resend (the SDK's statuses are draft | queued | sent): a canceled schedule is a draft
    // again, which can be edited, sent or deleted.
    const back = (await t.resend.broadcasts.get(d.id)).data!;
    assert.deepEqual([back.status, back.scheduled_at], ['draft', null]);
    assert.equal((await emailsOf(d.id)).length, 0);
    const edited = await t.resend.broadcasts.update(d.id, { subject: 'Later, edited' });
    assert.equal(edited.error, null, JSON.stringify(edited.error));
    assert.equal((await t.resend.broadcasts.send(d.id, { scheduledAt: 'in 2 hours' })).error, null);
    assert.equal((await broadcastGet(t.resend, d.id)).status, 'scheduled');
    assert.equal((await t.resend.broadcasts.cancel(d.id)).error, null);
    const gone = await t.resend.broadcasts.remove(d.id);
    assert.deepEqual(gone.data, { object: 'broadcast', id: d.id, deleted: true });
    assert.equal((await t.resend.broadcasts.get(d.id)).error?.statusCode, 404);
    // Deleting a scheduled broadcast cancels it with it (Resend's delete); it sends nothing.
    const s2 = (
      await t.resend.broadcasts.create({
        segmentId: segment,
        from,
        subject: 'Soon gone',
        text: 'x',
        send: true,
        scheduledAt: new Date(Date.now() + 800).toISOString(),
      })
    ).data!;
    assert.deepEqual((await t.resend.broadcasts.remove(s2.id)).data, { object: 'broadcast', id: s2.id, deleted: true });
    // A draft sent now and canceled before its first page also goes back to draft (or, when
    // the expansion won the race, is canceled with its undelivered emails).
    const q = (await t.resend.broadcasts.create({ segmentId: segment, from, subject: 'Now', text: 'n' })).data!;
    assert.equal((await t.resend.broadcasts.send(q.id)).error, null);
    assert.equal((await t.resend.broadcasts.cancel(q.id)).error, null);
    const qs = (await broadcastGet(t.resend, q.id)).status;
    assert.ok(qs === 'draft' ? (await emailsOf(q.id)).length === 0 : qs === 'canceled', qs);
    await sleep(1200);
    assert.equal((await emailsOf(s2.id)).length, 0, 'the deleted schedule sent nothing');

    // Scheduled a moment ahead (ISO 8601): sent once the time comes, not before.
    const soon = new Date(Date.now() + 1500).toISOString();
    const e = await t.resend.broadcasts.create({
      segmentId: segment,
      from,
      subject: 'Soon',
      text: 'soon',
      send: true,
      scheduledAt: soon,
    });
    assert.equal(e.error, null, JSON.stringify(e.error));
    assert.equal((await emailsOf(e.data!.id)).length, 0);
    const sent = await waitSent(e.data!.id);
    assert.ok(
      new Date(sent.sent_at!.replace(' ', 'T').replace(/\+00$/, 'Z')).getTime() >= new Date(soon).getTime() - 5,
    );
    assert.equal((await emailsOf(e.data!.id)).length, 4);
  });

  test('pause holds a broadcast and resume finishes it; test send goes to chosen addresses only; duplicate makes a draft', async () => {
    // Paused before its time, resumed: it waits for its time again.
    const later = (
      await t.resend.broadcasts.create({
        segmentId: segment,
        from,
        subject: 'Later',
        text: 'l',
        send: true,
        scheduledAt: 'in 10 minutes',
      })
    ).data!;
    assert.equal((await t.api('POST', `/broadcasts/${later.id}/pause`)).status, 200);
    const back = await t.api('POST', `/broadcasts/${later.id}/resume`);
    assert.deepEqual(back.body, { object: 'broadcast', id: later.id, status: 'scheduled' });
    assert.equal((await t.resend.broadcasts.cancel(later.id)).error, null);

    // Paused past its time: nothing goes until resumed, then everyone gets it.
    const d = (
      await t.resend.broadcasts.create({ segmentId: segment, from, subject: 'Paused {{{FIRST_NAME|you}}}', text: 'p' })
    ).data!;
    const s = await t.resend.broadcasts.send(d.id, { scheduledAt: new Date(Date.now() + 1000).toISOString() });
    assert.equal(s.error, null);
    const p = await t.api('POST', `/broadcasts/${d.id}/pause`);
    assert.equal(p.status, 200, JSON.stringify(p.body));
    const paused = await broadcastGet(t.resend, d.id);
    assert.deepEqual([paused.status, paused.pause_reason], ['paused', 'paused on request']);
    assert.equal((await t.api('POST', `/broadcasts/${d.id}/pause`)).status, 422);
    await sleep(1500);
    assert.equal((await emailsOf(d.id)).length, 0);
    assert.equal((await broadcastGet(t.resend, d.id)).status, 'paused');
    const r = await t.api('POST', `/broadcasts/${d.id}/resume`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.status, 'queued');
    const done = await waitSent(d.id);
    assert.equal(done.stats.recipients, 4);
    assert.equal((await t.api('POST', `/broadcasts/${d.id}/resume`)).status, 422);

    const test1 = await t.api('POST', `/broadcasts/${d.id}/test`, {
      body: { to: ['ann@dest.test', 'someone@else.test'] },
    });
    assert.equal(test1.status, 200, JSON.stringify(test1.body));
    assert.equal(test1.body.data.length, 2);
    assert.equal((await mimeOf(test1.body.data[0].id)).subject, 'Paused Ann');
    assert.equal((await mimeOf(test1.body.data[1].id)).subject, 'Paused you');
    assert.equal((await emailsOf(d.id)).length, 4); // test sends are not the broadcast's
    assert.equal((await t.api('POST', `/broadcasts/${d.id}/test`, { body: { to: [] } })).status, 422);

    const dup = await t.resend.broadcasts.duplicate(d.id);
    assert.equal(dup.error, null, JSON.stringify(dup.error));
    const copy = (await t.resend.broadcasts.get(dup.data!.id)).data!;
    assert.deepEqual([copy.status, copy.subject], ['draft', 'Paused {{{FIRST_NAME|you}}}']);
  });

  test('recipients by type and clicked links are cursor lists', async () => {
    const b = await t.resend.broadcasts.create({ segmentId: segment, from, subject: 'R', text: 'r', send: true });
    await waitSent(b.data!.id);
    await until('deliveries', async () => (await broadcastGet(t.resend, b.data!.id)).stats.delivered === 4);
    const sent = await t.resend.broadcasts.recipients(b.data!.id, { type: 'sent', limit: 3 });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    assert.equal(sent.data!.data.length, 3);
    assert.equal(sent.data!.has_more, true);
    const rest = await t.resend.broadcasts.recipients(b.data!.id, {
      type: 'sent',
      limit: 3,
      after: sent.data!.data[2].id,
    });
    assert.equal(rest.data!.data.length, 1);
    const all = [...sent.data!.data, ...rest.data!.data];
    assert.ok(all.every((r) => typeof r.contact_id === 'string'));
    const delivered = await t.resend.broadcasts.recipients(b.data!.id, { type: 'delivered', email: 'cy@dest.test' });
    assert.deepEqual(
      delivered.data!.data.map((r) => r.email),
      ['cy@dest.test'],
    );
    const opened = await t.resend.broadcasts.recipients(b.data!.id, { type: 'opened' });
    assert.equal(opened.data!.data.length, 0);
    const badType = await t.api('GET', `/broadcasts/${b.data!.id}/recipients?type=nope`);
    assert.equal(badType.status, 422);
    const links = await t.resend.broadcasts.clickedLinks(b.data!.id);
    assert.equal(links.error, null, JSON.stringify(links.error));
    assert.deepEqual(links.data!.data, []);
  });
  test('a filter segment (rules, no fixed members) is expanded by its rule', async () => {
    const seg = await t.api('POST', '/segments', {
      body: { name: 'Named A or B', filter: { field: 'first_name', op: 'in', value: ['Ann', 'Bob & <Co>', 'Gone'] } },
    });
    assert.equal(seg.status, 201, JSON.stringify(seg.body));
    const b = await t.resend.broadcasts.create({
      segmentId: seg.body.id,
      from,
      subject: 'Filtered',
      text: 'f',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    const done = await waitSent(b.data!.id);
    assert.deepEqual((await emailsOf(done.id)).map((e) => e.to[0]).sort(), ['ann@dest.test', 'bob@dest.test']); // Gone unsubscribed
  });

  test('open and click tracking apply when the domain has them, and leave the unsubscribe link alone', async () => {
    const on = await t.api('PATCH', `/domains/${t.domainId}`, { body: { open_tracking: true, click_tracking: true } });
    assert.equal(on.status, 200, JSON.stringify(on.body));
    await sleep(5_200); // the send path caches a sending domain for 5 s (send.ts DOMAIN_CACHE_MS)
    try {
      const b = await t.resend.broadcasts.create({
        segmentId: segment,
        from,
        subject: 'Tracked',
        html: '<p><a href="https://shop.example.org/sale">Sale</a> <a href="{{{RESEND_UNSUBSCRIBE_URL}}}">leave</a></p>',
        send: true,
      });
      await waitSent(b.data!.id);
      const ann = (await emailsOf(b.data!.id)).find((e) => e.to[0] === 'ann@dest.test')!;
      const html = (await mimeOf(ann.id)).html as string;
      assert.doesNotMatch(
        html,
        /href="https:\/\/shop\.example\.org\/sale"/,
        'the link is rewritten for click tracking',
      );
      assert.match(html, /href="http:\/\/[^"]+\/u\/[a-z2-7]{45}"/, 'the unsubscribe link is not');
      assert.match(html, /<img[^>]+src="http:\/\/[^"]+"/, 'an open pixel');
      // A click through the tracked link is counted for the broadcast.
      const tracked = /href="(http:\/\/[^"]+)"/.exec(html)![1].replace(/&amp;/g, '&');
      const u = new URL(tracked); // on MAILROOM_PUBLIC_URL: the test server is elsewhere
      const hit = await fetch(t.url + u.pathname + u.search, { redirect: 'manual' });
      assert.equal(hit.status, 302);
      const links = await until('the click counted', async () => {
        const l = (await t.resend.broadcasts.clickedLinks(b.data!.id)).data!;
        return l.data.length > 0 && l;
      });
      assert.deepEqual(
        links.data.map((l) => [l.url, l.clicks, l.unique_clicks]),
        [['https://shop.example.org/sale', 1, 1]],
      );
      const clicked = await t.resend.broadcasts.recipients(b.data!.id, { type: 'clicked' });
      assert.deepEqual(
        clicked.data!.data.map((r) => [r.email, r.count, r.clicked_links]),
        [['ann@dest.test', 1, [{ url: 'https://shop.example.org/sale', clicks: 1 }]]],
      );
    } finally {
      await t.api('PATCH', `/domains/${t.domainId}`, { body: { open_tracking: false, click_tracking: false } });
    }
  });

  test('a one-click unsubscribe from a broadcast email unsubscribes the contact from all list mail and counts in the broadcast', async () => {
    const seg = (await t.resend.segments.create({ name: 'Leavers' })).data!.id;
    await t.resend.contacts.create({ email: 'leaver@dest.test', firstName: 'Lee', segments: [{ id: seg }] } as never);
    const b = await t.resend.broadcasts.create({
      segmentId: seg,
      from,
      subject: 'L',
      text: 'Leave: {{{RESEND_UNSUBSCRIBE_URL}}}',
      send: true,
    });
    await waitSent(b.data!.id);
    const [email] = await emailsOf(b.data!.id);
    const link = new URL(/Leave: (\S+)/.exec((await mimeOf(email.id)).text!)![1]);
    const res = await fetch(t.url + link.pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    assert.equal(res.status, 200);
    assert.equal((await t.resend.contacts.get({ email: 'leaver@dest.test' } as never)).data!.unsubscribed, true);
    const got = await broadcastGet(t.resend, b.data!.id);
    assert.equal(got.stats.unsubscribed, 1);
    const listed = await t.resend.broadcasts.recipients(b.data!.id, { type: 'unsubscribed' });
    assert.deepEqual(
      listed.data!.data.map((r) => r.email),
      ['leaver@dest.test'],
    );
    // The next broadcast to the segment skips them.
    const next = await t.resend.broadcasts.create({ segmentId: seg, from, subject: 'L2', text: 'again', send: true });
    assert.deepEqual((await waitSent(next.data!.id)).stats.skipped, { unsubscribed: 1, topic: 0, suppressed: 0 });
  });

  test('/openapi.json documents every broadcast route', async () => {
    const doc = (await t.api('GET', '/openapi.json')).body;
    for (const [path, method] of [
      ['/broadcasts', 'post'],
      ['/broadcasts', 'get'],
      ['/broadcasts/{id}', 'get'],
      ['/broadcasts/{id}', 'patch'],
      ['/broadcasts/{id}', 'delete'],
      ['/broadcasts/{id}/send', 'post'],
      ['/broadcasts/{id}/cancel', 'post'],
      ['/broadcasts/{id}/duplicate', 'post'],
      ['/broadcasts/{id}/pause', 'post'],
      ['/broadcasts/{id}/resume', 'post'],
      ['/broadcasts/{id}/test', 'post'],
      ['/broadcasts/{id}/recipients', 'get'],
      ['/broadcasts/{id}/clicked-links', 'get'],
    ]) {
      assert.ok(doc.paths[path]?.[method], `${method.toUpperCase()} ${path}`);
    }
  });
});
