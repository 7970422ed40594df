import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startInboundWorld, smtpTalk, type InboundWorld } from '../helpers/inbound-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { waitForLastEvent } from '../helpers/mail-world.js';
import {
  arfComplaint,
  delayDsn,
  eximBounce,
  exchangeNdr,
  outOfOffice,
  postfixDsn,
  qmailBounce,
  type Original,
} from '../fixtures/reports.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from '../helpers/close-all.js';

interface Ev {
  type: string;
  recipient: string | null;
  data: Record<string, any>;
  detail: Record<string, any> | null;
}

describe('return paths: asynchronous bounces, delay notices, complaints and auto-replies', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  before(async () => {
    w = await startInboundWorld();
    rcv = await startReceiver();
    const { error } = await w.t.resend.webhooks.create({
      endpoint: rcv.url,
      events: ['email.bounced', 'email.complained', 'email.delivery_delayed'],
    });
    assert.equal(error, null);
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => w.close(),
    ),
  );

  /** Sends an email to `to` through the API, waits for its delivery, and returns what a report needs. */
  async function sent(to: string[], subject = 'Your receipt'): Promise<Original & { id: string }> {
    const { data, error } = await w.t.resend.emails.send({
      from: 'Example <sender@example.com>',
      to,
      subject,
      html: '<p>Hello</p>',
    });
    assert.equal(error, null);
    await waitForLastEvent(w.t, data!.id, ['delivered']);
    const msg = w.mx.messages.find(
      (m) =>
        m.rcptTo.some((r) => r.toLowerCase() === to[0].toLowerCase()) &&
        m.raw.toString().includes(`Subject: ${subject}`),
    )!;
    const messageId = /^Message-ID: (<[^>]+>)/m.exec(msg.raw.toString())![1];
    return { id: data!.id, returnPath: msg.mailFrom, messageId, from: 'sender@example.com', to, subject };
  }
  const events = async (id: string): Promise<Ev[]> => (await w.t.api('GET', `/emails/${id}/events`)).body.data;
  const suppression = async (email: string) => {
    const r = await w.t.api('GET', `/suppressions/${encodeURIComponent(email)}`);
    return r.status === 200 ? r.body : undefined;
  };
  /** Hands a report to the MX listener from the null sender (as MTAs send DSNs). */
  const report = (raw: string, rcpt: string, from = '') => w.deliver(raw, { from, to: [rcpt] }, { sign: false });
  async function eventOf(id: string, type: string): Promise<Ev> {
    for (let i = 0; i < 100; i++) {
      const e = (await events(id)).find((x) => x.type === type);
      if (e) return e;
      await sleep(20);
    }
    throw new Error(`no ${type} on ${id}: ${JSON.stringify((await events(id)).map((e) => e.type))}`);
  }

  test('a Postfix DSN (5.1.1) at the VERP address bounces that recipient permanently and suppresses it; the webhook says so', async () => {
    const o = await sent(['alice@dest.test']);
    assert.match(o.returnPath, /^bounces\+[0-9a-f]{32}@send\.example\.com$/);
    const { response } = await report(
      postfixDsn(o, [
        {
          addr: 'alice@dest.test',
          status: '5.1.1',
          diag: 'smtp; 550 5.1.1 <alice@dest.test>: Recipient address rejected: User unknown in local recipient table',
        },
      ]),
      o.returnPath,
    );
    assert.match(response, /^250 2\.0\.0 /);
    const e = await eventOf(o.id, 'email.bounced');
    assert.equal(e.recipient, 'alice@dest.test');
    assert.deepEqual(e.data.to, ['alice@dest.test']);
    assert.equal(e.data.bounce.type, 'Permanent');
    assert.equal(e.data.bounce.subType, 'NoEmail');
    assert.deepEqual(e.data.bounce.diagnosticCode, [
      'smtp; 550 5.1.1 <alice@dest.test>: Recipient address rejected: User unknown in local recipient table',
    ]);
    assert.equal(e.detail!.source, 'dsn');
    assert.equal(e.detail!.reporting_mta, 'mx1.dest.test');
    assert.equal((await w.t.resend.emails.get(o.id)).data!.last_event, 'bounced');
    const s = await suppression('alice@dest.test');
    assert.equal(s?.origin, 'bounce');
    assert.equal(s?.source_id, o.id);

    // The same DSN again (the reporter retried after losing our 250): kept, but recorded once.
    await report(
      postfixDsn(o, [
        {
          addr: 'alice@dest.test',
          status: '5.1.1',
          diag: 'smtp; 550 5.1.1 <alice@dest.test>: Recipient address rejected: User unknown in local recipient table',
        },
      ]),
      o.returnPath,
    );
    const { rows } = await w.t.db.pool.query(
      'SELECT count(*)::int AS n FROM return_path_messages WHERE email_id = $1',
      [o.id],
    );
    assert.equal(rows[0].n, 2);
    assert.equal((await events(o.id)).filter((x) => x.type === 'email.bounced').length, 1);

    const hooks = await rcv.waitFor(1);
    const body = JSON.parse(hooks[0].body);
    assert.equal(body.type, 'email.bounced');
    assert.equal(body.data.email_id, o.id);
    assert.equal(body.data.bounce.subType, 'NoEmail');
  });

  test('an Exim bounce without a DSN (X-Failed-Recipients, 552 5.2.2) is a permanent MailboxFull bounce', async () => {
    const o = await sent(['full@dest.test']);
    await report(eximBounce(o, 'full@dest.test', '552 5.2.2 Mailbox full, quota exceeded'), o.returnPath);
    const e = await eventOf(o.id, 'email.bounced');
    assert.equal(e.recipient, 'full@dest.test');
    assert.deepEqual([e.data.bounce.type, e.data.bounce.subType], ['Permanent', 'MailboxFull']);
    assert.deepEqual(e.data.bounce.diagnosticCode, ['smtp; 552 5.2.2 Mailbox full, quota exceeded']);
    assert.equal(e.detail!.source, 'bounce_message');
  });

  test('a qmail "failure notice" in plain words (#5.1.1) is a NoEmail bounce', async () => {
    const o = await sent(['gone@dest.test']);
    await report(qmailBounce(o, 'gone@dest.test'), o.returnPath);
    const e = await eventOf(o.id, 'email.bounced');
    assert.deepEqual(
      [e.recipient, e.data.bounce.type, e.data.bounce.subType],
      ['gone@dest.test', 'Permanent', 'NoEmail'],
    );
    assert.match(e.data.bounce.diagnosticCode[0], /no mailbox here by that name/);
    assert.ok(await suppression('gone@dest.test'));
  });

  test('an Exchange NDR (quoted-printable HTML, upper-case recipient, 5.1.10) matches the recipient and bounces it', async () => {
    const o = await sent(['Nobody@Dest.test']);
    await report(exchangeNdr(o, 'nobody@dest.test'), o.returnPath);
    const e = await eventOf(o.id, 'email.bounced');
    assert.equal(e.recipient, 'nobody@dest.test');
    assert.deepEqual([e.data.bounce.type, e.data.bounce.subType], ['Permanent', 'NoEmail']);
    assert.match(e.data.bounce.diagnosticCode[0], /^smtp;550 5\.1\.10 RESOLVER\.ADR\.RecipientNotFound/);
  });

  test('a multi-recipient DSN: a 5.x.x recipient bounces Permanent and is suppressed, a 4.x.x failure is Transient and is not', async () => {
    const o = await sent(['m1@dest.test', 'm2@dest.test', 'm3@dest.test']);
    await report(
      postfixDsn(o, [
        { addr: 'm1@dest.test', status: '5.1.1', diag: 'smtp; 550 5.1.1 User unknown' },
        {
          addr: 'm2@dest.test',
          status: '4.4.7',
          diag: 'X-Postfix; delivery temporarily suspended: connection timed out; message expired',
        },
      ]),
      o.returnPath,
    );
    await eventOf(o.id, 'email.bounced');
    const bounced = (await events(o.id)).filter((e) => e.type === 'email.bounced');
    assert.deepEqual(bounced.map((e) => [e.recipient, e.data.bounce.type]).sort(), [
      ['m1@dest.test', 'Permanent'],
      ['m2@dest.test', 'Transient'],
    ]);
    assert.ok(await suppression('m1@dest.test'));
    assert.equal(await suppression('m2@dest.test'), undefined);
    assert.equal(await suppression('m3@dest.test'), undefined, 'the recipient the DSN does not name is untouched');
  });

  test('a delay DSN is email.delivery_delayed (once), not a bounce, and suppresses nothing', async () => {
    const o = await sent(['slow@dest.test']);
    await report(delayDsn(o, 'slow@dest.test'), o.returnPath);
    const e = await eventOf(o.id, 'email.delivery_delayed');
    assert.equal(e.recipient, 'slow@dest.test');
    assert.equal(e.detail!.status, '4.4.1');
    await report(delayDsn(o, 'slow@dest.test'), o.returnPath);
    await eventOf(o.id, 'email.delivery_attempt');
    const types = (await events(o.id)).map((x) => x.type);
    assert.equal(types.filter((t) => t === 'email.delivery_delayed').length, 1);
    assert.ok(!types.includes('email.bounced'));
    assert.equal(await suppression('slow@dest.test'), undefined);
  });

  test('an ARF abuse report at the VERP address is email.complained and suppresses the address as a complaint', async () => {
    const o = await sent(['angry@dest.test']);
    await report(arfComplaint(o, 'angry@dest.test'), o.returnPath, 'fbl@fbl.dest.test');
    const e = await eventOf(o.id, 'email.complained');
    assert.equal(e.recipient, 'angry@dest.test');
    assert.equal(e.detail!.feedback_type, 'abuse');
    assert.equal(e.detail!.user_agent, 'DestFBL/1.0');
    assert.equal((await w.t.resend.emails.get(o.id)).data!.last_event, 'complained');
    assert.equal((await suppression('angry@dest.test'))?.origin, 'complaint');
  });

  test('an ARF report at a fixed feedback address (no VERP, no Original-Rcpt-To) is matched by the enclosed Message-ID', async () => {
    const o = await sent(['fbl2@dest.test']);
    await report(arfComplaint(o, 'fbl2@dest.test', { withRcptTo: false }), 'fbl@send.example.com', 'fbl@fbl.dest.test');
    const e = await eventOf(o.id, 'email.complained');
    assert.equal(e.recipient, 'fbl2@dest.test');
    assert.equal((await suppression('fbl2@dest.test'))?.origin, 'complaint');
  });

  test('an out-of-office reply to the return path is recorded as an auto-reply, not a bounce', async () => {
    const o = await sent(['away@dest.test']);
    await report(outOfOffice(o, 'away@dest.test'), o.returnPath, 'away@dest.test');
    const e = await eventOf(o.id, 'email.auto_replied');
    assert.equal(e.detail!.reason, 'x-autoreply');
    const types = (await events(o.id)).map((x) => x.type);
    assert.ok(!types.includes('email.bounced'));
    assert.equal((await w.t.resend.emails.get(o.id)).data!.last_event, 'delivered');
    assert.equal(await suppression('away@dest.test'), undefined);
  });

  test('every return-path message is kept, matched or not; one for an unknown email is taken and stored without an email', async () => {
    const unknown: Original = {
      returnPath: 'bounces+00000000000000000000000000000000@send.example.com',
      messageId: '<nope@example.com>',
      from: 'sender@example.com',
      to: ['x@dest.test'],
      subject: 'x',
    };
    const { response } = await report(
      postfixDsn(unknown, [{ addr: 'x@dest.test', status: '5.1.1', diag: 'smtp; 550 5.1.1 User unknown' }]),
      unknown.returnPath,
    );
    assert.match(response, /^250 /);
    const { rows } = await w.t.db.pool.query(
      'SELECT kind, email_id, rcpt_to FROM return_path_messages WHERE rcpt_to = $1',
      [unknown.returnPath],
    );
    assert.deepEqual(rows, [{ kind: 'bounce', email_id: null, rcpt_to: unknown.returnPath }]);
    assert.equal(await suppression('x@dest.test'), undefined);
  });

  test('the return-path host takes mail only for sending domains; other hosts of the domain are refused', async () => {
    const { replies } = await smtpTalk(w.mxPort, [
      'EHLO client.test',
      'MAIL FROM:<>',
      'RCPT TO:<bounces+abc@send.example.com>',
      'RCPT TO:<bounces+abc@other.example.com>',
      'QUIT',
    ]);
    assert.match(replies[3], /^250/);
    assert.match(replies[4], /^550 5\.7\.1 /);
  });
});
