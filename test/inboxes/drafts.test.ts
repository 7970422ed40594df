// Drafts through the resend SDK: standalone and reply drafts, attachments as content or a `path`
// fetched when the request is made (25 MB), update replaces attachments, list with snippets,
// send through the one send path (the draft is gone, the thread has the email), delete, events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { otherTeamClient, startTestApp, type TestApp } from '../helpers/harness.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { closeAll } from '../helpers/close-all.js';

describe('inbox drafts through the resend SDK', () => {
  let t: TestApp;
  let rcv: Receiver;
  let files: http.Server;
  let base: string;
  let inboxId: string;
  const sel = () => ({ inboxId });
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', allowPrivateNetworks: true });
    rcv = await startReceiver();
    await t.resend.webhooks.create({
      endpoint: rcv.url,
      events: [
        'inbox.draft.created',
        'inbox.draft.updated',
        'inbox.draft.sent',
        'inbox.draft.deleted',
        'inbox.email.sent',
        'inbox.thread.assigned',
        'inbox.thread.unassigned',
      ],
    });
    const d = await t.api('POST', '/domains', {
      body: { name: 'support.test', capabilities: { sending: 'enabled', receiving: 'enabled' } },
    });
    await t.resend.domains.verify(d.body.id);
    inboxId = (await t.resend.inboxes.create({ emailAddress: 'help@support.test', fromName: 'Help' })).data!.id;
    files = http.createServer((req, res) => {
      if (req.url === '/terms.pdf')
        return res.writeHead(200, { 'content-type': 'application/pdf' }).end('%PDF-1.4 terms');
      if (req.url === '/huge.bin') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        return res.end(Buffer.alloc(26 * 1024 * 1024, 1));
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => new Promise<void>((r) => files.close(() => r())),
      () => t.close(),
    ),
  );

  test('create with content and path attachments, update, list with snippets, send, reply draft, delete', async () => {
    const created = await t.resend.inboxes.drafts.create(
      {
        ...sel(),
        to: 'ann@example.org',
        subject: 'Your contract',
        html: '<p>Hello Ann, <b>here</b> is the contract.</p>',
        attachments: [
          { filename: 'contract.txt', content: Buffer.from('the contract'), contentType: 'text/plain' },
          { filename: 'terms.pdf', path: `${base}/terms.pdf` },
        ],
      },
      { idempotencyKey: 'draft-1' },
    );
    assert.equal(created.error, null, JSON.stringify(created.error));
    const id = created.data!.id;
    const replayed = await t.resend.inboxes.drafts.create(
      {
        ...sel(),
        to: 'ann@example.org',
        subject: 'Your contract',
        html: '<p>Hello Ann, <b>here</b> is the contract.</p>',
        attachments: [
          { filename: 'contract.txt', content: Buffer.from('the contract'), contentType: 'text/plain' },
          { filename: 'terms.pdf', path: `${base}/terms.pdf` },
        ],
      },
      { idempotencyKey: 'draft-1' },
    );
    assert.equal(replayed.data?.id, id, 'one draft for one key');
    const got = (await t.resend.inboxes.drafts.get({ ...sel(), draftId: id })).data!;
    assert.deepEqual(
      [got.object, got.type, got.to, got.cc, got.subject, got.thread_id, got.email_id],
      ['inbox_draft', 'standalone', ['ann@example.org'], [], 'Your contract', null, null],
    );
    assert.deepEqual(
      got.attachments.map((a) => [a.filename, a.content_type, a.size]),
      [
        ['contract.txt', 'text/plain', 12],
        ['terms.pdf', 'application/pdf', 14],
      ],
    );
    const list = (await t.resend.inboxes.drafts.list(sel())).data!;
    assert.deepEqual(
      list.data.map((d) => [d.id, d.snippet]),
      [[id, 'Hello Ann, here is the contract.']],
    );
    assert.equal((await t.resend.inboxes.get(inboxId)).data!.drafts, 1);

    // Refusals: nothing given, a path that cannot be fetched, too much, a URL that is no http(s).
    assert.equal((await t.api('POST', `/inboxes/${inboxId}/drafts`, { body: {} })).status, 422);
    const missing = await t.resend.inboxes.drafts.create({
      ...sel(),
      text: 'x',
      attachments: [{ filename: 'a', path: `${base}/nope` }],
    });
    assert.equal(missing.error?.statusCode, 422);
    const huge = await t.resend.inboxes.drafts.create({
      ...sel(),
      text: 'x',
      attachments: [{ filename: 'h.bin', path: `${base}/huge.bin` }],
    });
    assert.equal(huge.error?.statusCode, 422, JSON.stringify(huge.error));
    const ftp = await t.resend.inboxes.drafts.create({
      ...sel(),
      text: 'x',
      attachments: [{ filename: 'f', path: 'ftp://example.org/f' }],
    });
    assert.equal(ftp.error?.statusCode, 422);

    // Update replaces the attachments.
    const upd = await t.resend.inboxes.drafts.update({
      ...sel(),
      draftId: id,
      subject: 'Your signed contract',
      attachments: null,
    });
    assert.deepEqual(upd.data, { object: 'inbox_draft', id });
    const after1 = (await t.resend.inboxes.drafts.get({ ...sel(), draftId: id })).data!;
    assert.deepEqual([after1.subject, after1.attachments, after1.html], ['Your signed contract', [], got.html]);

    const badHeader = await t.resend.inboxes.drafts.send({ ...sel(), draftId: id, headers: { References: '<x@y>' } });
    assert.equal(badHeader.error?.statusCode, 422);
    const sent = await t.resend.inboxes.drafts.send({ ...sel(), draftId: id });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const emailId = sent.data!.id;
    assert.equal((await t.resend.inboxes.drafts.get({ ...sel(), draftId: id })).error?.name, 'not_found');
    const email = (await t.resend.emails.get(emailId)).data!;
    assert.deepEqual(
      [email.from, email.subject, email.to],
      ['Help <help@support.test>', 'Your signed contract', ['ann@example.org']],
    );
    const [thread] = (await t.resend.inboxes.threads.list({ ...sel(), folders: ['sent'] })).data!.data;
    assert.deepEqual([thread.subject, thread.email_count, thread.read], ['Your signed contract', 1, true]);
    const [message] = (await t.resend.inboxes.threads.emails.list({ ...sel(), threadId: thread.id })).data!.data;
    assert.deepEqual([message.id, message.direction], [emailId, 'outbound']);

    // A reply draft: to the recipients of the email we sent, with Re: and In-Reply-To.
    const r = await t.resend.inboxes.drafts.create({
      ...sel(),
      threadId: thread.id,
      replyToEmailId: emailId,
      text: 'Any news?',
    });
    assert.equal(r.error, null, JSON.stringify(r.error));
    const rd = (await t.resend.inboxes.drafts.get({ ...sel(), draftId: r.data!.id })).data!;
    assert.deepEqual([rd.type, rd.thread_id, rd.reply_to_email_id], ['reply', thread.id, emailId]);
    assert.equal((await t.resend.inboxes.threads.list(sel())).data!.data[0].has_draft, true);
    const replySent = (await t.resend.inboxes.drafts.send({ ...sel(), draftId: r.data!.id })).data!;
    const reply = (await t.api('GET', `/emails/${replySent.id}`)).body;
    assert.equal(reply.subject, 'Re: Your signed contract');
    assert.deepEqual(reply.to, ['ann@example.org']);
    const { rows } = await t.db.pool.query('SELECT message_id FROM emails WHERE id = $1', [emailId]);
    const raw = (await t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [replySent.id])).rows[0].raw;
    assert.match(
      Buffer.from(raw).toString(),
      new RegExp(`In-Reply-To: ${rows[0].message_id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`),
    );
    assert.equal((await t.resend.inboxes.threads.emails.list({ ...sel(), threadId: thread.id })).data!.data.length, 2);

    // Delete; another team sees nothing.
    const gone = (await t.resend.inboxes.drafts.create({ ...sel(), subject: 'later' })).data!.id;
    const other = await otherTeamClient(t, 'Others');
    assert.equal((await other.inboxes.drafts.get({ inboxId, draftId: gone })).error?.name, 'not_found');
    assert.equal((await other.inboxes.drafts.remove({ inboxId, draftId: gone })).error?.name, 'not_found');
    assert.deepEqual((await t.resend.inboxes.drafts.remove({ ...sel(), draftId: gone })).data, {
      object: 'inbox_draft',
      id: gone,
      deleted: true,
    });

    const events = (await rcv.waitFor(9)).map((e) => JSON.parse(e.body));
    const types = events.map((e) => e.type).sort();
    assert.deepEqual(types, [
      'inbox.draft.created',
      'inbox.draft.created',
      'inbox.draft.created',
      'inbox.draft.deleted',
      'inbox.draft.sent',
      'inbox.draft.sent',
      'inbox.draft.updated',
      'inbox.email.sent',
      'inbox.email.sent',
    ]);
    const sentEvent = events.find((e) => e.type === 'inbox.draft.sent' && e.data.draft_id === id);
    assert.deepEqual(
      [sentEvent.data.email_id, sentEvent.data.thread_id, sentEvent.data.draft.html],
      [emailId, thread.id, undefined],
    );
  });

  test('mail sent with POST /emails from the inbox address is filed; threads are assigned to members', async () => {
    const sent = await t.resend.emails.send({
      from: 'Help <help@support.test>',
      to: 'bo@example.org',
      subject: 'Welcome aboard',
      text: 'Hi Bo',
    });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const other = await t.resend.emails.send({
      from: 'news@support.test',
      to: 'bo@example.org',
      subject: 'Not an inbox',
      text: 'x',
    });
    assert.equal(other.error, null);
    const threads = (await t.resend.inboxes.threads.list({ ...sel(), folders: ['sent'] })).data!.data;
    const welcome = threads.find((x) => x.subject === 'Welcome aboard');
    assert.ok(welcome, JSON.stringify(threads));
    assert.equal(threads.filter((x) => x.subject === 'Not an inbox').length, 0);
    const [m] = (await t.resend.inboxes.threads.emails.list({ ...sel(), threadId: welcome.id })).data!.data;
    assert.deepEqual([m.id, m.direction, m.to], [sent.data!.id, 'outbound', ['bo@example.org']]);

    const userId = '6f1c2a52-8d0e-4d3c-9a41-0c5b8f3e2a11';
    await t.db.pool.query("INSERT INTO users (id, email, name) VALUES ($1, 'agent@support.test', 'Agent')", [userId]);
    await t.db.pool.query("INSERT INTO team_members (team_id, user_id, role) VALUES ($1, $2, 'member')", [
      t.app.defaultTeamId,
      userId,
    ]);
    const path = `/inboxes/${inboxId}/threads/${welcome.id}`;
    const assigned = await t.api('PATCH', path, { body: { assignee_email: 'Agent@support.test' } });
    assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
    assert.equal(assigned.body.assignee_email, 'agent@support.test');
    const stranger = await t.api('PATCH', path, { body: { assignee_email: 'nobody@support.test' } });
    assert.equal(stranger.status, 422);
    assert.match(stranger.body.message, /assignee_email/);
    const unassigned = await t.api('PATCH', path, { body: { assignee_email: null } });
    assert.equal(unassigned.body.assignee_email, null);
    const events = (await rcv.waitFor(12)).map((e) => JSON.parse(e.body));
    const sentEvents = events.filter((e) => e.type === 'inbox.email.sent' && e.data.email_id === sent.data!.id);
    assert.equal(sentEvents.length, 1);
    const a = events.find((e) => e.type === 'inbox.thread.assigned');
    assert.deepEqual(
      [a.data.thread_id, a.data.assignee_email, a.data.previous_assignee_email],
      [welcome.id, 'agent@support.test', null],
    );
    const u = events.find((e) => e.type === 'inbox.thread.unassigned');
    assert.equal(u.data.previous_assignee_email, 'agent@support.test');
  });
});
