// A bounce that arrives later (a DSN to the VERP return path through the MX listener) is explained
// on the email like a bounce at delivery time, once: a second report adds nothing.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { waitForLastEvent } from '../helpers/mail-world.js';
import { until } from '../helpers/until.js';
import { postfixDsn } from '../fixtures/reports.js';

let w: InboundWorld;
before(async () => {
  w = await startInboundWorld();
});
after(async () => {
  await w?.close();
});

test('a DSN reporting 5.7.26 after acceptance is explained on the email: DMARC alignment', {
  timeout: 60_000,
}, async () => {
  const { data, error } = await w.t.resend.emails.send({
    from: 'Example <sender@example.com>',
    to: 'alice@dest.test',
    subject: 'Your receipt',
    html: '<p>Thanks for your order 1042: it ships on Monday.</p>',
  });
  assert.equal(error, null);
  await waitForLastEvent(w.t, data!.id, ['delivered']);
  const msg = w.mx.messages.find((m) => m.rcptTo.includes('alice@dest.test'))!;
  const o = {
    returnPath: msg.mailFrom,
    messageId: /^Message-ID: (<[^>]+>)/m.exec(msg.raw.toString())![1],
    from: 'sender@example.com',
    to: ['alice@dest.test'],
    subject: 'Your receipt',
  };
  const dsn = postfixDsn(o, [
    {
      addr: 'alice@dest.test',
      status: '5.7.26',
      diag: "smtp; 550 5.7.26 Unauthenticated email from example.com is not accepted due to domain's DMARC policy",
    },
  ]);
  assert.match((await w.deliver(dsn, { from: '', to: [o.returnPath] }, { sign: false })).response, /^250 /);
  const insights = async () =>
    (await w.t.api('GET', `/emails/${data!.id}/insights`)).body.data as {
      id: string;
      title: string;
      detail: string;
      fix: string;
    }[];
  const f = await until('the DSN explained', async () => (await insights()).find((x) => x.id === 'receiver-rejected'));
  assert.equal(f.title, 'The receiver requires DMARC alignment');
  assert.match(f.detail, /alice@dest\.test: "550 5\.7\.26 Unauthenticated/);
  assert.match(f.fix, /_dmarc\.example\.com/);
  const again = postfixDsn(o, [{ addr: 'alice@dest.test', status: '5.1.1', diag: 'smtp; 550 5.1.1 User unknown' }]);
  assert.match((await w.deliver(again, { from: '', to: [o.returnPath] }, { sign: false })).response, /^250 /);
  await new Promise((r) => setTimeout(r, 500));
  assert.equal((await insights()).filter((x) => x.id.startsWith('receiver-')).length, 1);
});
