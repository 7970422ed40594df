import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startMailWorld, type MailWorld } from '../helpers/mail-world.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { startTestApp, type TestApp } from '../helpers/harness.js';
import { listener, queuedId, RawSmtp, SMTP_TEST_LISTENERS, transport } from '../helpers/smtp-submit.js';
import { sleep } from '../../src/lib/time.js';

type SmtpErr = { responseCode?: number; response?: string };
const refused = (code: number, re: RegExp) => (err: SmtpErr) => {
  assert.equal(err.responseCode, code, err.response);
  assert.match(err.response ?? '', re);
  return true;
};

describe("SMTP submission refusals, in the error table's words", () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld({
      roles: ['api', 'worker', 'smtp'],
      smtpListen: SMTP_TEST_LISTENERS,
      smtpMaxSize: 64 * 1024,
    });
    const { data } = await w.t.resend.domains.create({ name: 'other.test' });
    publishRecords(w.dns, 'other.test', data!.records as unknown as WireRecord[]);
    await w.t.resend.domains.verify(data!.id);
  });
  after(async () => {
    await w.close();
  });

  const send = async (
    mail: Record<string, unknown>,
    opts: Parameters<typeof transport>[2] = {},
    security: 'starttls' | 'tls' = 'tls',
  ) => {
    const tr = transport(w.t, security, opts);
    try {
      return await tr.sendMail({ from: 'hello@example.com', to: 'x@dest.test', subject: 'S', text: 'x', ...mail });
    } finally {
      tr.close();
    }
  };

  for (const security of ['starttls', 'tls'] as const) {
    test(`${security}: a wrong API key or username is 535 5.7.8`, async () => {
      await assert.rejects(
        send({}, { pass: 're_wrong_key' }, security),
        refused(535, /^535 5\.7\.8 Invalid API key\./),
      );
      await assert.rejects(send({}, { user: 'admin' }, security), refused(535, /^535 5\.7\.8 Invalid username/));
      assert.ok(
        queuedId((await send({}, { user: 'MAILROOM' }, security)).response),
        'the username is mailroom or resend, any case',
      );
    });

    test(`${security}: a sender domain that is not verified is 550 5.7.1, in MAIL FROM and in the From header`, async () => {
      await assert.rejects(
        send({ from: 'me@unknown.test' }, {}, security),
        refused(550, /^550 5\.7\.1 The `unknown\.test` domain is not verified/),
      );
      await assert.rejects(
        send({ from: 'me@unknown.test', envelope: { from: 'hello@example.com', to: ['x@dest.test'] } }, {}, security),
        refused(550, /^550 5\.7\.1 The `unknown\.test` domain is not verified/),
      );
      await assert.rejects(
        send({ envelope: { from: '', to: ['x@dest.test'] } }, {}, security),
        refused(553, /^553 5\.1\.7 /),
      );
    });

    test(`${security}: a message over MAILROOM_SMTP_MAX_SIZE is 552 5.3.4 and nothing is stored`, async () => {
      const before = (await w.t.db.pool.query('SELECT count(*)::int AS n FROM emails')).rows[0].n;
      await assert.rejects(send({ text: 'y'.repeat(100_000) }, {}, security), refused(552, /^552 5\.3\.4 /));
      assert.equal((await w.t.db.pool.query('SELECT count(*)::int AS n FROM emails')).rows[0].n, before);
    });
  }

  test('before STARTTLS: AUTH is 538 5.7.0, mail without AUTH is 530 5.7.0; EHLO advertises the extensions', async () => {
    const c = await RawSmtp.connect(listener(w.t, 'starttls'));
    try {
      assert.match(await c.reply(), /^220 mx\.mailroom\.test ESMTP Mailroom$/);
      const ehlo = await c.cmd('EHLO client.test');
      for (const ext of ['PIPELINING', '8BITMIME', 'SMTPUTF8', 'ENHANCEDSTATUSCODES', 'STARTTLS', `SIZE ${64 * 1024}`])
        assert.match(ehlo, new RegExp(`^250[- ]${ext}$`, 'm'), ext);
      assert.match(await c.login(w.t.key), /^538 5\.7\.0 /);
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^530 5\.7\.0 Authentication required/);
      assert.match(await c.cmd('STARTTLS'), /^220 /);
      await c.starttls();
      assert.match(await c.cmd('EHLO client.test'), /^250[- ]AUTH PLAIN LOGIN$/m);
      assert.match(await c.login(w.t.key), /^235 /);
    } finally {
      c.close();
    }
  });

  test('a SIZE announced over the limit is refused at MAIL FROM with 552 5.3.4', async () => {
    const c = await RawSmtp.connect(listener(w.t, 'tls'), { tls: true });
    try {
      await c.reply();
      await c.cmd('EHLO client.test');
      await c.login(w.t.key);
      assert.match(await c.cmd(`MAIL FROM:<hello@example.com> SIZE=${10 * 1024 * 1024}`), /^552 5\.3\.4 /);
      assert.match(await c.cmd(`MAIL FROM:<hello@example.com> SIZE=${1024}`), /^250 /);
    } finally {
      c.close();
    }
  });

  test('a key deleted while its session is open is refused at the next MAIL FROM', async () => {
    const k = await w.t.app.apiKeys.create(w.t.app.defaultTeamId, { name: 'short-lived' });
    const c = await RawSmtp.connect(listener(w.t, 'tls'), { tls: true });
    try {
      await c.reply();
      await c.cmd('EHLO client.test');
      assert.match(await c.login(k.token), /^235 /);
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
      assert.match(await c.cmd('RSET'), /^250 /);
      await w.t.app.apiKeys.delete(w.t.app.defaultTeamId, k.id);
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^535 5\.7\.8 /);
    } finally {
      c.close();
    }
  });

  test('the 51st recipient is 452 4.5.3 and a malformed one 553 5.1.3; the first 50 are kept', async () => {
    const c = await RawSmtp.connect(listener(w.t, 'tls'), { tls: true });
    try {
      await c.reply();
      await c.cmd('EHLO client.test');
      await c.login(w.t.key);
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
      for (let i = 0; i < 50; i++) assert.match(await c.cmd(`RCPT TO:<r${i}@dest.test>`), /^250 /);
      assert.match(await c.cmd('RCPT TO:<r50@dest.test>'), /^452 4\.5\.3 /);
      assert.match(await c.cmd('RCPT TO:<r1@dest.test>'), /^250 /, 'a repeated recipient is not a new one');
      assert.match(await c.cmd('RCPT TO:<user@localhost>'), /^(452 4\.5\.3|553 5\.1\.3) /);
      assert.match(await c.cmd('RSET'), /^250 /);
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
      assert.match(
        await c.cmd('RCPT TO:<user@localhost>'),
        /^553 5\.1\.3 Invalid recipient: .*domain must contain a dot/,
      );
    } finally {
      c.close();
    }
  });

  test('a sending_access key bound to a domain may only send from that domain', async () => {
    const bound = await w.t.app.apiKeys.create(w.t.app.defaultTeamId, {
      name: 'bound',
      permission: 'sending_access',
      domainId: w.domainId,
    });
    assert.ok(queuedId((await send({}, { pass: bound.token })).response));
    await assert.rejects(
      send({ from: 'news@other.test' }, { pass: bound.token }),
      refused(550, /^550 5\.7\.1 This API key is restricted to another domain and cannot send from `other\.test`/),
    );
    await assert.rejects(
      send(
        { from: 'news@other.test', envelope: { from: 'hello@example.com', to: ['x@dest.test'] } },
        { pass: bound.token },
      ),
      refused(550, /^550 5\.7\.1 This API key is restricted/),
    );
    assert.ok(queuedId((await send({ from: 'news@other.test' })).response), 'a full-access key sends from either');
  });

  test('a message with two From (or To, Subject, Date, Message-ID, Reply-To, Sender) headers is refused 550 5.6.0, also for a domain-bound key', async () => {
    const bound = await w.t.app.apiKeys.create(w.t.app.defaultTeamId, {
      name: 'bound2',
      permission: 'sending_access',
      domainId: w.domainId,
    });
    const twoFrom = [
      'From: boss@other.test',
      'From: x@example.com',
      'To: x@dest.test',
      'Subject: hi',
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'hello',
      '--b--',
      '',
    ].join('\r\n');
    const envelope = { from: 'x@example.com', to: ['x@dest.test'] };
    await assert.rejects(send({ raw: twoFrom, envelope }), refused(550, /^550 5\.6\.0 The message has 2 From headers/));
    await assert.rejects(send({ raw: twoFrom, envelope }, { pass: bound.token }), refused(550, /^550 5\.6\.0 /));
    for (const h of [
      'To: y@dest.test',
      'Subject: again',
      'Date: Mon, 1 Jan 2024 00:00:00 +0000',
      'Message-ID: <a@b.test>',
      'Reply-To: r@dest.test',
      'Sender: s@example.com',
    ]) {
      const name = h.split(':')[0];
      const raw = [
        `From: x@example.com`,
        'To: x@dest.test',
        'Subject: hi',
        'Date: Mon, 1 Jan 2024 00:00:00 +0000',
        'Message-ID: <m@example.com>',
        'Reply-To: r@dest.test',
        'Sender: s@example.com',
        h,
        '',
        'body',
        '',
      ].join('\r\n');
      await assert.rejects(
        send({ raw, envelope }),
        refused(550, new RegExp(`^550 5\\.6\\.0 The message has 2 ${name} headers`)),
        name,
      );
    }
    const { rows } = await w.t.db.pool.query(
      `SELECT count(*)::int AS n FROM emails WHERE from_header LIKE '%boss@other.test%'`,
    );
    assert.equal(rows[0].n, 0);
  });

  test('ten failed logins from one address lock it out (451 4.7.1) while other addresses go on', async () => {
    const from2 = { localAddress: '127.0.0.2' };
    for (let i = 0; i < 10; i++)
      await assert.rejects(send({}, { ...from2, pass: `re_bad_${i}` }), refused(535, /^535 5\.7\.8 /));
    await assert.rejects(
      send({}, from2),
      refused(451, /^451 4\.7\.1 Too many failed authentication attempts from 127\.0\.0\.2; try again in 15 minutes\./),
    );
    assert.ok(queuedId((await send({})).response));
  });

  test('a right key between wrong ones forgives none of them: the eleventh wrong key in the window meets 451 4.7.1, and so does the right key', async () => {
    const l = listener(w.t, 'tls');
    const loginOnce = async (key: string) => {
      const c = await RawSmtp.connect(l, { tls: true, localAddress: '127.0.0.7' });
      try {
        await c.reply();
        await c.cmd('EHLO alternating.test');
        return await c.login(key);
      } finally {
        c.close();
      }
    };
    const replies: string[] = [];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 8; i++) replies.push(await loginOnce(`re_wrong_${round}_${i}`));
      replies.push(await loginOnce(w.t.key));
    }
    const wrong = replies.filter((_, i) => i % 9 !== 8);
    const right = replies.filter((_, i) => i % 9 === 8);
    assert.ok(
      wrong.slice(0, 10).every((r) => r.startsWith('535 5.7.8 ')),
      wrong.join('\n'),
    );
    assert.ok(
      wrong.slice(10).every((r) => /^451 4\.7\.1 Too many failed authentication attempts from 127\.0\.0\.7/.test(r)),
      wrong.join('\n'),
    );
    assert.match(right[0], /^235 /, 'before the lock-out the right key signs in');
    assert.ok(
      right.slice(1).every((r) => r.startsWith('451 4.7.1 ')),
      `a locked-out address is refused even with the right key:\n${right.join('\n')}`,
    );
  });

  test('thirty concurrent wrong logins from one address get at most ten key checks; the rest are refused 451 4.7.1', async () => {
    const l = listener(w.t, 'tls');
    const conns = await Promise.all(
      Array.from({ length: 30 }, async () => {
        const c = await RawSmtp.connect(l, { tls: true, localAddress: '127.0.0.5' });
        await c.reply();
        await c.cmd('EHLO racer.test');
        return c;
      }),
    );
    try {
      const replies = await Promise.all(conns.map((c, i) => c.login(`re_race_${i}`)));
      const checked = replies.filter((r) => r.startsWith('535 5.7.8 '));
      const refused = replies.filter((r) => r.startsWith('451 4.7.1 '));
      assert.equal(checked.length + refused.length, 30, replies.join('\n'));
      assert.ok(checked.length <= 10, `${checked.length} of 30 concurrent guesses were checked (limit 10)`);
    } finally {
      for (const c of conns) c.close();
    }
  });
});

const TRUSTED_KEY = 're_trusted_0123456789abcdefghijklmn';

describe('SMTP submission limits shared with the API, per-address limits, trusted networks', () => {
  let t: TestApp;
  const alignToWindow = () => sleep(1000 - (Date.now() % 1000) + 20);
  before(async () => {
    t = await startTestApp({
      roles: ['api', 'smtp'],
      smtpListen: SMTP_TEST_LISTENERS,
      deliveryMode: 'capture',
      rateLimit: 3,
      smtpMaxConnectionsPerIp: 3,
      smtpTrustedNetworks: ['127.0.0.4/32'],
      smtpTrustedApiKey: TRUSTED_KEY,
    });
    await t.app.apiKeys.create(t.app.defaultTeamId, { name: 'trusted relay', token: TRUSTED_KEY });
    await alignToWindow();
    const { data } = await t.resend.domains.create({ name: 'example.com' });
    await t.resend.domains.verify(data!.id);
  });
  after(async () => {
    await t.close();
  });

  const session = async (l = listener(t, 'tls')) => {
    const c = await RawSmtp.connect(l, { tls: true });
    await c.reply();
    await c.cmd('EHLO client.test');
    assert.match(await c.login(t.key), /^235 /);
    return c;
  };

  test('the per-team rate limit is one budget for API requests and SMTP messages (451 4.7.1 / 429)', async () => {
    const c = await session();
    try {
      await alignToWindow();
      for (let i = 0; i < 3; i++) assert.equal((await t.api('GET', '/domains')).status, 200);
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^451 4\.7\.1 Too many requests/);
      await alignToWindow();
      for (let i = 0; i < 3; i++) {
        assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
        assert.match(await c.cmd('RSET'), /^250 /);
      }
      assert.equal((await t.api('GET', '/domains')).status, 429);
    } finally {
      c.close();
    }
  });

  test('connections from one address beyond MAILROOM_SMTP_MAX_CONNECTIONS_PER_IP are refused with 421', async () => {
    const l = listener(t, 'starttls');
    const open = await Promise.all([1, 2, 3].map(() => RawSmtp.connect(l, { localAddress: '127.0.0.3' })));
    try {
      for (const c of open) assert.match(await c.reply(), /^220 /);
      const fourth = await RawSmtp.connect(l, { localAddress: '127.0.0.3' });
      assert.match(await fourth.reply(), /^421 4\.7\.1 Too many connections from 127\.0\.0\.3; at most 3 at a time\./);
      fourth.close();
      const other = await RawSmtp.connect(l);
      assert.match(await other.reply(), /^220 /);
      other.close();
      open.pop()!.close();
      await sleep(100);
      const again = await RawSmtp.connect(l, { localAddress: '127.0.0.3' });
      assert.match(await again.reply(), /^220 /, 'a closed connection frees its slot');
      again.close();
    } finally {
      for (const c of open) c.close();
    }
  });

  test('a trusted network submits without TLS or AUTH, as the configured key; others still must authenticate', async () => {
    const l = listener(t, 'starttls');
    // Twice: the second round takes the verdict remembered per address (session.ts isTrusted).
    for (const round of [1, 2]) await trustedRound(l, round);
  });

  const trustedRound = async (l: ReturnType<typeof listener>, round: number) => {
    const c = await RawSmtp.connect(l, { localAddress: '127.0.0.4' });
    try {
      await c.reply();
      assert.doesNotMatch(await c.cmd('EHLO bench.test'), /AUTH/);
      await alignToWindow();
      assert.match(await c.cmd('MAIL FROM:<hello@example.com>'), /^250 /);
      assert.match(await c.cmd('RCPT TO:<a@dest.test>'), /^250 /);
      assert.match(await c.cmd('DATA'), /^354 /);
      const id = queuedId(
        await c.cmd(`From: hello@example.com\r\nTo: a@dest.test\r\nSubject: Trusted ${round}\r\n\r\nHi\r\n.`),
      );
      const { rows } = await t.db.pool.query('SELECT source, subject FROM emails WHERE id = $1', [id]);
      assert.deepEqual(rows, [{ source: 'smtp', subject: `Trusted ${round}` }]);
    } finally {
      c.close();
    }
    const outsider = await RawSmtp.connect(l);
    try {
      await outsider.reply();
      await outsider.cmd('EHLO x.test');
      assert.match(await outsider.cmd('MAIL FROM:<hello@example.com>'), /^530 5\.7\.0 /);
    } finally {
      outsider.close();
    }
  };
});
