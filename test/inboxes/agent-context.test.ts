// The inbox agent with the context a person would have: a forward it drafts carries the original's
// attachments (the draft holds them; sent, they reach the recording MX), and its prompt includes
// the thread's earlier messages (received and sent, oldest first), bounded to the last 10 and 2 KB
// of text each. Mail in through the MX listener, the model a loopback server the test starts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { EMAIL_MARK, previousIn, startModel } from '../helpers/model-server.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { closeAll } from '../helpers/close-all.js';
import { until } from '../helpers/until.js';

const compose = (opts: Record<string, unknown>) => new MailComposer(opts as never).compile().build();
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(3000), Buffer.from('\n%%EOF\n')]);

describe('the inbox agent reads the thread and forwards files', () => {
  let w: InboundWorld;
  let model: Awaited<ReturnType<typeof startModel>>;
  let inboxId: string;
  const sel = () => ({ inboxId });
  const mail = async (opts: Record<string, unknown>) => {
    const raw = await compose({ from: 'Sam <someone@sender.test>', to: 'support@inbound.test', ...opts });
    await w.deliver(raw, { from: 'someone@sender.test', to: ['support@inbound.test'] });
  };
  const threadOf = (subject: string) =>
    until(`the thread "${subject}"`, async () =>
      (await w.t.resend.inboxes.threads.list(sel())).data?.data.find((t) => t.subject === subject),
    );
  /** The model call for the email holding `text` (in the email itself, not in the earlier messages). */
  const callFor = (text: string) =>
    until(`the model call for "${text}"`, async () =>
      model.seen.find((s) => {
        const user = s.body.messages.find((m) => m.role === 'user')?.content ?? '';
        return user.slice(user.lastIndexOf(EMAIL_MARK)).includes(text);
      }),
    );
  const userOf = (s: { body: { messages: { role: string; content: string }[] } }) =>
    s.body.messages.find((m) => m.role === 'user')!.content;

  before(async () => {
    model = await startModel(
      {
        'Please forward the invoice': { actions: [{ type: 'forward_thread', to: 'accounts@dest.test', text: 'FYI.' }] },
      },
      new Map(),
    );
    w = await startInboundWorld({ agentModelUrl: model.url, agentModel: 'tiny-model' });
    const id = w.receivingDomainId; // sends too: a draft of the agent is sent by a person
    await w.t.api('PATCH', `/domains/${id}`, { body: { capabilities: { sending: 'enabled' } } });
    publishRecords(w.dns, 'inbound.test', (await w.t.api('GET', `/domains/${id}`)).body.records as WireRecord[]);
    await w.t.api('POST', `/domains/${id}/verify`);
    await until('inbound.test verified for sending', async () => {
      const d = (await w.t.api('GET', `/domains/${id}`)).body;
      return d.status === 'verified';
    });
    inboxId = (await w.t.resend.inboxes.create({ emailAddress: 'support@inbound.test' })).data!.id;
  });
  after(() =>
    closeAll(
      () => w.close(),
      () => model.close(),
    ),
  );

  test("a forward the agent drafts carries the original's attachments", async () => {
    await w.t.resend.inboxes.agent.update({ ...sel(), actions: ['forward_thread'] });
    await mail({
      subject: 'Please forward the invoice',
      messageId: '<inv@sender.test>',
      text: 'The invoice and a note are attached.',
      attachments: [
        { filename: 'invoice.pdf', content: PDF, contentType: 'application/pdf' },
        { filename: 'note.txt', content: 'pay by Friday', contentType: 'text/plain' },
      ],
    });
    await threadOf('Please forward the invoice');
    const listed = await until('the forward draft', async () =>
      (await w.t.resend.inboxes.drafts.list(sel())).data?.data.find((d) => d.to?.includes('accounts@dest.test')),
    );
    const draft = (await w.t.resend.inboxes.drafts.get({ ...sel(), draftId: listed.id })).data!;
    assert.equal(draft.subject, 'Fwd: Please forward the invoice');
    assert.match(draft.text ?? '', /^FYI\.[\s\S]*Forwarded message[\s\S]*The invoice and a note are attached\./);
    assert.deepEqual(
      draft.attachments.map((a) => [a.filename, a.content_type, a.size]),
      [
        ['invoice.pdf', 'application/pdf', PDF.length],
        ['note.txt', 'text/plain', 13],
      ],
    );
    assert.equal(w.mx.messages.length, 0, 'a draft: nothing sent');

    // A person sends it: the files reach the recipient unchanged.
    const sent = await w.t.resend.inboxes.drafts.send({ ...sel(), draftId: draft.id });
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const [out] = await w.mx.waitFor(1);
    assert.deepEqual(out.rcptTo, ['accounts@dest.test']);
    const parsed = await simpleParser(out.raw);
    assert.deepEqual(
      parsed.attachments.map((a) => [
        a.filename,
        a.content.equals(a.filename === 'invoice.pdf' ? PDF : Buffer.from('pay by Friday')),
      ]),
      [
        ['invoice.pdf', true],
        ['note.txt', true],
      ],
    );
  });

  test("the prompt carries the thread's earlier messages, received and sent, oldest first, bounded", async () => {
    await w.t.resend.inboxes.agent.update({ ...sel(), actions: ['add_labels'] });
    await mail({ subject: 'Order 9 status', messageId: '<c1@sender.test>', text: 'First: where is order 9?' });
    const t = await threadOf('Order 9 status');
    const first = await callFor('First: where is order 9?');
    assert.deepEqual(previousIn(userOf(first)), [], 'a new thread: nothing earlier');

    const [received] = (await w.t.resend.inboxes.threads.emails.list({ ...sel(), threadId: t.id })).data!.data;
    const reply = await w.t.resend.inboxes.threads.emails.reply({
      ...sel(),
      threadId: t.id,
      emailId: received.id,
      text: 'It ships on Monday.',
    });
    assert.equal(reply.error, null, JSON.stringify(reply.error));
    await mail({
      subject: 'Re: Order 9 status',
      messageId: '<c3@sender.test>',
      inReplyTo: '<c1@sender.test>',
      references: ['<c1@sender.test>'],
      text: 'Third: still nothing arrived.',
    });
    const third = await callFor('Third: still nothing arrived.');
    const prev = previousIn(userOf(third));
    assert.deepEqual(
      prev.map((p) => [p.direction, p.text.trim()]),
      [
        ['received', 'First: where is order 9?'],
        ['sent by the inbox', 'It ships on Monday.'],
      ],
    );
    assert.equal(prev[0].from, 'someone@sender.test');
    assert.equal(prev[1].from, 'support@inbound.test');
    assert.match(userOf(third).slice(userOf(third).lastIndexOf(EMAIL_MARK)), /Third: still nothing arrived\./);

    // Twelve more long messages: the prompt holds the last 10 before the email, 2 KB of text each.
    for (let i = 1; i <= 12; i++)
      await mail({
        subject: 'Re: Order 9 status',
        messageId: `<long${i}@sender.test>`,
        inReplyTo: '<c1@sender.test>',
        references: ['<c1@sender.test>'],
        text: `Long message ${i}: ${'x'.repeat(5000)}`,
      });
    const last = await callFor('Long message 12:');
    const bounded = previousIn(userOf(last));
    assert.equal(bounded.length, 10);
    assert.deepEqual(
      bounded.map((p) => /^Long message (\d+):/.exec(p.text)?.[1] ?? p.text),
      Array.from({ length: 10 }, (_, i) => String(i + 2)), // long 2 to 11: the first three fell out
    );
    for (const p of bounded) assert.ok(p.text.length <= 2048, `cut to 2 KB, got ${p.text.length}`);
    assert.equal((await w.t.resend.inboxes.threads.list(sel())).data!.data.find((x) => x.id === t.id)?.email_count, 15);
  });
});
