// What a receiver's refusal does to the recipient, end to end (SDK → delivery job → recording MX):
// the bounce subType the webhook carries and whether the address lands on the suppression list.
// Only a reply that clearly says the mailbox does not exist suppresses (issue 24).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';

describe('bounce replies and suppression (fake DNS, recording MX, mx mode)', () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld();
  });
  after(async () => {
    await w.close();
  });

  /** Sends to `to` while the MX answers RCPT with `code message`; returns the bounce and the suppression. */
  async function refusedWith(to: string, code: number, message: string) {
    w.mx.onRcpt = (a) => (a === to ? { code, message } : undefined);
    try {
      const { data } = await w.t.resend.emails.send({ from: 'hello@example.com', to, subject: 'Hi', text: 'x' });
      const last = await waitForLastEvent(w.t, data!.id, ['bounced', 'delivery_delayed']);
      const events = (await w.t.api('GET', `/emails/${data!.id}/events`)).body.data;
      const bounced = events.find((e: { type: string }) => e.type === 'email.bounced');
      const suppression = await w.t.resend.suppressions.get(to);
      return {
        last,
        bounce: bounced?.data.bounce as { type: string; subType: string } | undefined,
        suppressed: !suppression.error,
      };
    } finally {
      w.mx.onRcpt = () => undefined;
    }
  }

  test('a full mailbox refused under the code of an unknown one (Orange 552 5.1.1) is MailboxFull and not suppressed', async () => {
    const r = await refusedWith(
      'full@dest.test',
      552,
      '5.1.1 Boite du destinataire pleine. Recipient overquota. OFR_417 [417]',
    );
    assert.equal(r.last, 'bounced');
    assert.deepEqual([r.bounce?.type, r.bounce?.subType], ['Permanent', 'MailboxFull']);
    assert.equal(r.suppressed, false);
  });

  test('a 552 whose text is about size bounces at once as MessageTooLarge instead of being retried', async () => {
    const r = await refusedWith('big@dest.test', 552, 'Message exceeded maximum size limit');
    assert.equal(r.last, 'bounced');
    assert.equal(r.bounce?.subType, 'MessageTooLarge');
    assert.equal(r.suppressed, false);
  });

  test('an Italian "utente inesistente" is NoEmail and suppresses the address', async () => {
    const r = await refusedWith('nessuno@dest.test', 550, 'Utente inesistente');
    assert.equal(r.bounce?.subType, 'NoEmail');
    assert.equal(r.suppressed, true);
  });

  test("a content scanner's banned attachment and banned content are AttachmentRejected and ContentRejected, not suppressed", async () => {
    const banned = await refusedWith('scan1@dest.test', 554, '5.7.0 Reject, id=18327-05 - BANNED: invoice.pdf.exe');
    assert.equal(banned.bounce?.subType, 'AttachmentRejected');
    assert.equal(banned.suppressed, false);
    const content = await refusedWith('scan2@dest.test', 554, '5.7.1 Message rejected: banned content');
    assert.equal(content.bounce?.subType, 'ContentRejected');
    assert.equal(content.suppressed, false);
  });

  test('a refusal the rules cannot read bounces General and leaves the address unsuppressed', async () => {
    const r = await refusedWith('odd@dest.test', 550, 'Address rejected');
    assert.deepEqual([r.last, r.bounce?.type, r.bounce?.subType], ['bounced', 'Permanent', 'General']);
    assert.equal(r.suppressed, false);
  });
});
