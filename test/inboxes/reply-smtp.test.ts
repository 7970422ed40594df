// End to end over real SMTP: mail in through the MX listener to an inbox address, the thread read
// through the resend SDK, a reply sent through the SDK leaves through the MTA to a recording MX
// with In-Reply-To/References, the customer's answer to it lands in the same thread; forwards
// carry the original's attachments.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { closeAll } from '../helpers/close-all.js';
import { until } from '../helpers/until.js';

const compose = (opts: Record<string, unknown>) => new MailComposer(opts as never).compile().build();

describe('an inbox conversation over real SMTP', () => {
  let w: InboundWorld;
  let inboxId: string;
  before(async () => {
    w = await startInboundWorld();
    // The receiving domain sends too: its sending records published and verified.
    const id = w.receivingDomainId;
    const upd = await w.t.api('PATCH', `/domains/${id}`, { body: { capabilities: { sending: 'enabled' } } });
    assert.equal(upd.status, 200, JSON.stringify(upd.body));
    publishRecords(w.dns, 'inbound.test', (await w.t.api('GET', `/domains/${id}`)).body.records as WireRecord[]);
    await w.t.api('POST', `/domains/${id}/verify`);
    await until('inbound.test verified for sending', async () => {
      const d = (await w.t.api('GET', `/domains/${id}`)).body;
      return d.status === 'verified' ? d : undefined;
    });
    inboxId = (await w.t.resend.inboxes.create({ emailAddress: 'support@inbound.test', fromName: 'Support team' }))
      .data!.id;
  });
  after(() => w.close());

  test('a reply goes out with In-Reply-To and References, and the answer to it joins the thread', async () => {
    const raw = await compose({
      from: 'Casey <someone@sender.test>',
      replyTo: 'customer@dest.test',
      to: 'support@inbound.test',
      subject: 'My parcel',
      messageId: '<q1@sender.test>',
      text: 'Where is my parcel?',
      attachments: [{ filename: 'photo.txt', content: 'a picture of a parcel', contentType: 'text/plain' }],
    });
    const { response } = await w.deliver(raw, { from: 'someone@sender.test', to: ['support@inbound.test'] });
    const firstId = /queued as ([0-9a-f-]{36})/.exec(response)![1];
    const thread = await until(
      'the thread',
      async () => (await w.t.resend.inboxes.threads.list({ inboxId })).data?.data[0],
    );

    const refused = await w.t.resend.inboxes.threads.emails.reply({
      inboxId,
      threadId: thread.id,
      emailId: firstId,
      text: 'x',
      headers: { 'in-reply-to': '<forged@x>' },
    });
    assert.equal(refused.error?.statusCode, 422);
    assert.match(refused.error!.message, /in-reply-to/);

    const sent = await w.t.resend.inboxes.threads.emails.reply(
      { inboxId, threadId: thread.id, emailId: firstId, text: 'It is on its way.', headers: { 'X-Ticket': '42' } },
      { idempotencyKey: 'reply-1' },
    );
    assert.equal(sent.error, null, JSON.stringify(sent.error));
    const again = await w.t.resend.inboxes.threads.emails.reply(
      { inboxId, threadId: thread.id, emailId: firstId, text: 'It is on its way.', headers: { 'X-Ticket': '42' } },
      { idempotencyKey: 'reply-1' },
    );
    assert.equal(again.data?.id, sent.data!.id, 'the same key answers the same email');

    const [out] = await w.mx.waitFor(1);
    assert.deepEqual(out.rcptTo, ['customer@dest.test']);
    const parsed = await simpleParser(out.raw);
    assert.equal(parsed.inReplyTo, '<q1@sender.test>');
    assert.equal(parsed.references, '<q1@sender.test>');
    assert.equal(parsed.subject, 'Re: My parcel');
    assert.equal(parsed.from?.value[0].address, 'support@inbound.test');
    assert.equal(parsed.from?.value[0].name, 'Support team');
    assert.equal(parsed.replyTo?.value[0].address, 'support@inbound.test');
    assert.equal(parsed.headers.get('x-ticket'), '42');
    assert.match(out.raw.toString(), /DKIM-Signature: .*d=inbound\.test/s);
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(w.mx.messages.length, 1, 'one message for the two requests with one key');

    const emails = (await w.t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data;
    assert.deepEqual(
      emails.map((e) => [e.direction, e.read]),
      [
        ['inbound', false],
        ['outbound', true],
      ],
    );
    assert.equal(emails[1].id, sent.data!.id);
    assert.equal(emails[1].message_id, parsed.messageId);

    // The customer answers the reply; their client names it in In-Reply-To (another subject, even).
    const answer = await compose({
      from: 'someone@sender.test',
      to: 'support@inbound.test',
      subject: 'thanks!',
      inReplyTo: parsed.messageId,
      references: ['<q1@sender.test>', parsed.messageId],
      text: 'Got it, thank you.',
    });
    await w.deliver(answer, { from: 'someone@sender.test', to: ['support@inbound.test'] });
    const three = await until('the answer in the same thread', async () => {
      const l = (await w.t.resend.inboxes.threads.list({ inboxId })).data!.data;
      return l.length === 1 && l[0].email_count === 3 ? l[0] : undefined;
    });
    assert.equal(three.id, thread.id);
    assert.equal(three.read, false);
  });

  test("a forward carries the original's attachments and is filed in the thread", async () => {
    const [thread] = (await w.t.resend.inboxes.threads.list({ inboxId })).data!.data;
    const [first] = (await w.t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data;
    const fwd = await w.t.resend.inboxes.threads.emails.forward({
      emailAddress: 'support@inbound.test',
      threadId: thread.id,
      emailId: first.id,
      to: 'colleague@dest.test',
      text: 'Can you check this one?',
      attachments: [{ filename: 'note.txt', content: Buffer.from('my note') }],
    });
    assert.equal(fwd.error, null, JSON.stringify(fwd.error));
    const msg = await until('the forward at the MX', async () =>
      w.mx.messages.find((m) => m.rcptTo.includes('colleague@dest.test')),
    );
    const parsed = await simpleParser(msg.raw);
    assert.equal(parsed.subject, 'Fwd: My parcel');
    assert.match(parsed.text ?? '', /Can you check this one\?[\s\S]*Forwarded message[\s\S]*Where is my parcel\?/);
    assert.deepEqual(
      parsed.attachments.map((a) => [a.filename, a.content.toString()]),
      [
        ['photo.txt', 'a picture of a parcel'],
        ['note.txt', 'my note'],
      ],
    );
    const emails = (await w.t.resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data;
    assert.equal(emails.at(-1)!.id, fwd.data!.id);
    assert.deepEqual(emails.at(-1)!.to, ['colleague@dest.test']);
    const missingTo = await w.t.api('POST', `/inboxes/${inboxId}/threads/${thread.id}/emails/${first.id}/forward`, {
      body: { text: 'x' },
    });
    assert.equal(missingTo.status, 422);
  });
});
