// Mail received through the MX listener for an inbox address is filed into threads (Message-ID,
// In-Reply-To/References, then subject and participants), read through the resend SDK: folders,
// read state, labels, filters, search, emails, removal; inbox.* events reach a webhook.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { otherTeamClient } from '../helpers/harness.js';
import { closeAll } from '../helpers/close-all.js';
import { until } from '../helpers/until.js';
import { fileMissedReceived } from '../../src/inboxes/filing.js';

const compose = (opts: Record<string, unknown>) => new MailComposer(opts as never).compile().build();

describe('inbox threads from mail received through the MX', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  let inboxId: string;
  const sel = () => ({ inboxId });
  const mail = async (opts: Record<string, unknown>, to = ['support@inbound.test']) => {
    const raw = await compose({ to: to.join(', '), ...opts });
    const { response } = await w.deliver(raw, { from: 'someone@sender.test', to });
    return /queued as ([0-9a-f-]{36})/.exec(response)![1];
  };
  const threads = async (q: Record<string, unknown> = {}) => {
    const r = await w.t.resend.inboxes.threads.list({ ...sel(), ...q } as never);
    assert.equal(r.error, null, JSON.stringify(r.error));
    return r.data!;
  };

  before(async () => {
    w = await startInboundWorld();
    rcv = await startReceiver();
    await w.t.resend.webhooks.create({
      endpoint: rcv.url,
      events: [
        'inbox.thread.created',
        'inbox.email.received',
        'inbox.thread.folder.updated',
        'inbox.thread.labels.updated',
      ],
    });
    inboxId = (await w.t.resend.inboxes.create({ emailAddress: 'support@inbound.test', name: 'Support' })).data!.id;
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => w.close(),
    ),
  );

  test('files by Message-ID references, then by subject and participants; other mail makes new threads', async () => {
    const first = await mail({
      from: 'Sam <someone@sender.test>',
      subject: 'Order 42: where is my invoice?',
      messageId: '<order-42@sender.test>',
      text: 'I have not received the invoice for order 42.',
      attachments: [{ filename: 'receipt.txt', content: 'paid', contentType: 'text/plain' }],
    });
    const t1 = await until('the first thread', async () => (await threads()).data[0]);
    assert.equal(t1.subject, 'Order 42: where is my invoice?');
    assert.deepEqual(
      [t1.folder, t1.read, t1.email_count, t1.has_attachment, t1.from],
      ['inbox', false, 1, true, 'someone@sender.test'],
    );
    const inbox = (await w.t.resend.inboxes.get(inboxId)).data!;
    assert.equal(inbox.unread, 1);
    assert.ok(inbox.last_received);

    // A reply naming the first by In-Reply-To, though its subject differs.
    const second = await mail({
      from: 'someone@sender.test',
      subject: 'Something else entirely',
      messageId: '<order-42-b@sender.test>',
      inReplyTo: '<order-42@sender.test>',
      references: ['<order-42@sender.test>'],
      text: 'Any news?',
    });
    // No references, the same subject behind "Re:" and the same participant: the fallback.
    const third = await mail({
      from: 'someone@sender.test',
      subject: 'RE:  order 42: where is my invoice?',
      text: 'Hello?',
    });
    // Another sender, another subject; and mail for an address that is no inbox.
    await mail({
      from: 'other@sender.test',
      subject: 'Partnership',
      text: 'Shall we work together? zebra. No invoice yet.',
    });
    await mail({ from: 'someone@sender.test', subject: 'Order 42: where is my invoice?', text: 'x' }, [
      'sales@inbound.test',
    ]);
    const all = await until('two threads with four emails', async () => {
      const l = await threads();
      return l.data.length === 2 && l.data.reduce((n, t) => n + t.email_count, 0) === 4 ? l : undefined;
    });
    assert.deepEqual(
      all.data.map((t) => [t.subject, t.email_count]),
      [
        ['Partnership', 1],
        ['Order 42: where is my invoice?', 3],
      ],
    );
    const emails = (await w.t.resend.inboxes.threads.emails.list({ ...sel(), threadId: t1.id })).data!;
    assert.deepEqual(
      emails.data.map((e) => e.id),
      [first, second, third],
    );
    assert.deepEqual(
      [
        emails.data[0].direction,
        emails.data[0].message_id,
        emails.data[0].text?.trim(),
        emails.data[0].attachments.map((a) => a.filename),
      ],
      ['inbound', '<order-42@sender.test>', 'I have not received the invoice for order 42.', ['receipt.txt']],
    );
    const page = (await w.t.resend.inboxes.threads.emails.list({ ...sel(), threadId: t1.id, limit: 2, after: first }))
      .data!;
    assert.deepEqual([page.has_more, page.data.map((e) => e.id)], [false, [second, third]]);
    const one = (
      await w.t.resend.inboxes.threads.emails.get({
        emailAddress: 'support@inbound.test',
        threadId: t1.id,
        emailId: second,
      })
    ).data!;
    assert.equal(one.subject, 'Something else entirely');
    assert.equal((await w.t.resend.inboxes.get(inboxId)).data!.unread, 2, 'two threads with unread mail');

    // Paging the thread list.
    const p1 = await threads({ limit: 1 });
    const p2 = await threads({ limit: 1, after: p1.data[0].id });
    assert.deepEqual([p1.has_more, p2.has_more, p2.data[0].id], [true, false, t1.id]);
  });

  test('read state, folders, labels and filters; search is ranked; another team sees nothing', async () => {
    const [partnership, order] = (await threads()).data;
    const read = await w.t.resend.inboxes.threads.update({ ...sel(), threadId: order.id, read: true });
    assert.deepEqual([read.data?.object, read.data?.read, read.data?.folder], ['inbox_thread', true, 'inbox']);
    assert.deepEqual(
      (await threads({ read: false })).data.map((t) => t.id),
      [partnership.id],
    );
    assert.equal((await w.t.resend.inboxes.get(inboxId)).data!.unread, 1);
    const moved = await w.t.resend.inboxes.threads.update({ ...sel(), threadId: partnership.id, folder: 'archive' });
    assert.equal(moved.data?.folder, 'archive');
    assert.deepEqual(
      (await threads({ folders: ['archive'] })).data.map((t) => t.id),
      [partnership.id],
    );
    assert.deepEqual(
      (await threads({ folders: ['inbox', 'spam'] })).data.map((t) => t.id),
      [order.id],
    );
    const bad = await w.t.api('PATCH', `/inboxes/${inboxId}/threads/${order.id}`, { body: { folder: 'sent' } });
    assert.equal(bad.status, 422);
    assert.match(bad.body.message, /folder/);

    const urgent = (await w.t.resend.inboxes.labels.create({ ...sel(), name: 'Urgent', color: '#E93D82' })).data!.id;
    const billing = (await w.t.resend.inboxes.labels.create({ ...sel(), name: 'Billing' })).data!.id;
    assert.equal((await w.t.resend.inboxes.labels.create({ ...sel(), name: 'urgent' })).error?.statusCode, 422);
    assert.match(
      (await w.t.resend.inboxes.labels.create({ ...sel(), name: 'X', color: 'red' })).error!.message,
      /#RRGGBB/,
    );
    const added = (
      await w.t.resend.inboxes.threads.labels.add({ ...sel(), threadId: order.id, labels: [urgent, billing] })
    ).data!;
    assert.deepEqual(
      added.data.map((l) => [l.name, l.color]),
      [
        ['Urgent', '#E93D82'],
        ['Billing', '#6B7280'],
      ],
    );
    assert.deepEqual(
      (await threads({ labels: [urgent] })).data.map((t) => t.id),
      [order.id],
    );
    const set = (await w.t.resend.inboxes.threads.labels.set({ ...sel(), threadId: order.id, labels: [billing] }))
      .data!;
    assert.deepEqual(
      set.data.map((l) => l.name),
      ['Billing'],
    );
    const removed = (await w.t.resend.inboxes.threads.labels.remove({ ...sel(), threadId: order.id, labelId: billing }))
      .data!;
    assert.deepEqual(removed.data, []);
    const tooMany = await w.t.resend.inboxes.threads.labels.add({
      ...sel(),
      threadId: order.id,
      labels: Array(11).fill(urgent),
    });
    assert.equal(tooMany.error?.statusCode, 422);
    const unknown = await w.t.resend.inboxes.threads.labels.add({
      ...sel(),
      threadId: order.id,
      labels: [partnership.id],
    });
    assert.match(unknown.error!.message, /no label/);
    await w.t.resend.inboxes.labels.update({ ...sel(), labelId: urgent, name: 'Very urgent' });
    assert.deepEqual(
      (await w.t.resend.inboxes.labels.list(sel())).data!.data.map((l) => l.name),
      ['Very urgent', 'Billing'],
    );

    // Ranked: the subject weighs more than a body.
    const found = (await w.t.resend.inboxes.threads.search({ ...sel(), query: 'invoice' })).data!;
    assert.deepEqual(
      found.data.map((t) => t.id),
      [order.id, partnership.id],
    );
    const paged = (await w.t.resend.inboxes.threads.search({ ...sel(), query: 'invoice', limit: 1, after: order.id }))
      .data!;
    assert.deepEqual([paged.has_more, paged.data.map((t) => t.id)], [false, [partnership.id]]);
    assert.ok(found.data[0].matched_email_id);
    const zebra = (await w.t.resend.inboxes.threads.search({ ...sel(), query: 'zebra', folders: ['archive'] })).data!;
    assert.deepEqual(
      zebra.data.map((t) => t.id),
      [partnership.id],
    );
    const byFrom = (await w.t.resend.inboxes.threads.search({ ...sel(), from: ['other@sender.test'] })).data!;
    assert.deepEqual(
      byFrom.data.map((t) => t.id),
      [partnership.id],
    );
    assert.equal(
      (await w.t.resend.inboxes.threads.search({ ...sel(), query: 'q'.repeat(501) })).error?.statusCode,
      422,
    );

    // inbound.test receives only: a reply is refused by the send path, nothing is filed.
    const [first] = (await w.t.resend.inboxes.threads.emails.list({ ...sel(), threadId: order.id })).data!.data;
    const noSending = await w.t.resend.inboxes.threads.emails.reply({
      ...sel(),
      threadId: order.id,
      emailId: first.id,
      text: 'x',
    });
    assert.ok(
      noSending.error && noSending.error.statusCode! >= 400 && noSending.error.statusCode! < 500,
      JSON.stringify(noSending.error),
    );
    assert.equal((await w.t.resend.inboxes.threads.emails.list({ ...sel(), threadId: order.id })).data!.data.length, 3);

    const other = await otherTeamClient(w.t, 'Others');
    assert.equal((await other.inboxes.threads.get({ inboxId, threadId: order.id })).error?.name, 'not_found');
    assert.equal((await other.inboxes.threads.list({ emailAddress: 'support@inbound.test' })).error?.name, 'not_found');
    assert.equal((await other.inboxes.labels.list({ inboxId })).error?.name, 'not_found');

    assert.deepEqual((await w.t.resend.inboxes.threads.remove({ ...sel(), threadId: partnership.id })).data, {
      object: 'inbox_thread',
      id: partnership.id,
      deleted: true,
    });
    assert.equal(
      (await w.t.resend.inboxes.threads.get({ ...sel(), threadId: partnership.id })).error?.name,
      'not_found',
    );

    const events = (await rcv.waitFor(10)).map((r) => JSON.parse(r.body));
    const count = (type: string) => events.filter((e) => e.type === type).length;
    assert.deepEqual(
      [
        count('inbox.thread.created'),
        count('inbox.email.received'),
        count('inbox.thread.folder.updated'),
        count('inbox.thread.labels.updated'),
      ],
      [2, 4, 1, 3],
    );
    const created = events.find((e) => e.type === 'inbox.thread.created');
    assert.deepEqual(
      [created.data.source, created.data.inbox_id, created.data.thread.object],
      ['system', inboxId, 'inbox_thread'],
    );
    assert.equal(created.data.email.html, undefined, 'no bodies in events');
    const folder = events.find((e) => e.type === 'inbox.thread.folder.updated');
    assert.deepEqual([folder.data.from, folder.data.to], ['inbox', 'archive']);
  });

  test('the sweep files received mail that missed its filing, and leaves removed threads removed', async () => {
    const id = await mail({
      from: 'late@sender.test',
      subject: 'Filed late',
      messageId: '<late@sender.test>',
      text: 'late',
    });
    const filed = await until('filed', async () => (await threads()).data.find((t) => t.subject === 'Filed late'));
    // As if the process had died between the received email's commit and its filing.
    await w.t.db.pool.query('DELETE FROM inbox_threads WHERE id = $1', [filed.id]);
    await w.t.db.pool.query('DELETE FROM inbox_filed WHERE source_id = $1', [id]);
    assert.equal(await fileMissedReceived(w.t.db.pool, 0), 1, 'only that email: removed threads stay removed');
    const again = (await threads()).data.find((t) => t.subject === 'Filed late');
    assert.ok(again);
    const [m] = (await w.t.resend.inboxes.threads.emails.list({ ...sel(), threadId: again.id })).data!.data;
    assert.equal(m.id, id);
    assert.equal(await fileMissedReceived(w.t.db.pool, 0), 0, 'once');
  });
});
