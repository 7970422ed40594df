import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { classifyReportRecipient, parseReturnPathMessage } from '../../src/inbound/return-path-report.js';
import { malformedReason } from '../../src/inbound/parse.js';
import { parseMime } from '../../src/inbound/mime-tree.js';
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

const o: Original = {
  returnPath: 'bounces+0123456789abcdef0123456789abcdef@send.example.com',
  messageId: '<m1@example.com>',
  from: 'a@example.com',
  to: ['r@dest.test'],
  subject: 'Hi',
};
const fixtures = {
  postfix: postfixDsn(o, [{ addr: 'r@dest.test', status: '5.1.1', diag: 'smtp; 550 5.1.1 User unknown' }]),
  exim: eximBounce(o, 'r@dest.test', '550 5.1.1 No such user'),
  qmail: qmailBounce(o, 'r@dest.test'),
  exchange: exchangeNdr(o, 'r@dest.test'),
  delay: delayDsn(o, 'r@dest.test'),
  arf: arfComplaint(o, 'r@dest.test'),
  ooo: outOfOffice(o, 'r@dest.test'),
};

// A small deterministic PRNG so a failure can be replayed from its seed.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32;
}

describe('return-path report parsing', () => {
  test('each fixture is read as the kind it is, with the enclosed Message-ID', () => {
    const kinds = Object.fromEntries(
      Object.entries(fixtures).map(([k, v]) => [
        k,
        parseReturnPathMessage(Buffer.from(v), k === 'ooo' || k === 'arf' ? 'x@dest.test' : ''),
      ]),
    );
    assert.deepEqual(Object.fromEntries(Object.entries(kinds).map(([k, r]) => [k, r.kind])), {
      postfix: 'bounce',
      exim: 'bounce',
      qmail: 'bounce',
      exchange: 'bounce',
      delay: 'delay',
      arf: 'complaint',
      ooo: 'auto_reply',
    });
    for (const k of ['postfix', 'exim', 'qmail', 'exchange', 'delay', 'arf'] as const)
      assert.equal(kinds[k].originalMessageId, '<m1@example.com>', k);
  });

  test('a human reply to the return path and a success DSN are neither bounces nor complaints', () => {
    const reply = Buffer.from('From: r@dest.test\r\nTo: x@send.example.com\r\nSubject: Re: Hi\r\n\r\nthanks!\r\n');
    assert.equal(parseReturnPathMessage(reply, 'r@dest.test').kind, 'unknown');
    const success = postfixDsn(o, [
      { addr: 'r@dest.test', status: '2.0.0', diag: 'smtp; 250 ok', action: 'delivered' },
    ]);
    assert.equal(parseReturnPathMessage(Buffer.from(success)).kind, 'unknown');
    const notSpam = arfComplaint(o, 'r@dest.test').replace('Feedback-Type: abuse', 'Feedback-Type: not-spam');
    assert.equal(parseReturnPathMessage(Buffer.from(notSpam), 'f@x.test').kind, 'unknown');
  });

  test('classification: Status decides permanence, the rules table the subType', () => {
    const c = (status: string | undefined, diag?: string) =>
      classifyReportRecipient({ recipient: 'r@dest.test', action: 'failed', status, diagnosticCode: diag });
    assert.deepEqual(
      [c('5.1.1', 'smtp; 550 5.1.1 User unknown').type, c('5.1.1', 'smtp; 550 5.1.1 User unknown').subType],
      ['Permanent', 'NoEmail'],
    );
    assert.deepEqual([c('5.2.2').type, c('5.2.2').subType], ['Permanent', 'MailboxFull']);
    assert.deepEqual([c('5.3.4', 'smtp; 552 5.3.4 Message too big').subType], ['MessageTooLarge']);
    assert.equal(c('4.4.7', 'X-Postfix; message expired').type, 'Transient');
    assert.equal(c('5.7.1', 'smtp; 550 5.7.1 Message rejected as spam').subType, 'ContentRejected');
    assert.equal(c(undefined, 'smtp; 550 Mailbox unavailable').type, 'Permanent');
    assert.equal(c(undefined, 'smtp; 450 Mailbox busy').type, 'Transient');
  });

  test('fuzz: truncated, byte-flipped and random messages never throw and always give a kind', () => {
    const r = rng(20261123);
    const kinds = new Set(['bounce', 'delay', 'complaint', 'auto_reply', 'unknown']);
    for (const [name, text] of Object.entries(fixtures)) {
      const base = Buffer.from(text);
      for (let i = 0; i < 200; i++) {
        const b = Buffer.from(base.subarray(0, Math.floor(r() * base.length) + 1));
        for (let j = 0; j < 1 + Math.floor(r() * 20); j++) b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
        const rep = parseReturnPathMessage(b, r() < 0.5 ? '' : 'x@y.test');
        assert.ok(kinds.has(rep.kind), `${name} #${i}`);
        assert.doesNotThrow(() => malformedReason(b));
      }
    }
    for (let i = 0; i < 300; i++) {
      const b = randomBytes(Math.floor(r() * 4000));
      assert.ok(kinds.has(parseReturnPathMessage(b).kind));
      assert.equal(typeof (malformedReason(b) ?? ''), 'string');
    }
  });

  test('fuzz: deep or broken MIME nesting is bounded', () => {
    let msg = 'From: a@b.test\r\nContent-Type: text/plain\r\n\r\nleaf\r\n';
    for (let i = 0; i < 50; i++)
      msg = `From: a@b.test\r\nContent-Type: multipart/mixed; boundary="b${i}"\r\n\r\n--b${i}\r\n${msg}\r\n--b${i}--\r\n`;
    const root = parseMime(Buffer.from(msg));
    let depth = 0;
    for (let p = root; p.children.length; p = p.children[0]) depth++;
    assert.ok(depth <= 8, `depth ${depth}`);
    const unterminated =
      'Content-Type: multipart/report; report-type=delivery-status; boundary="x"\r\n\r\n--x\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; a\r\n\r\nFinal-Recipient: rfc822; r@dest.test\r\nAction: failed\r\nStatus: 5.1.1\r\n';
    const rep = parseReturnPathMessage(Buffer.from(unterminated));
    assert.equal(rep.kind, 'bounce');
  });

  test('malformedReason: a sane header section passes; missing From, NUL bytes and garbage do not', () => {
    assert.equal(malformedReason(Buffer.from('From: a@b.test\r\nSubject: x\r\n\r\nbody')), null);
    assert.equal(malformedReason(Buffer.from('Received: from x\r\n\tby y\r\nFrom: a@b.test\r\n\r\n')), null);
    assert.match(malformedReason(Buffer.from('Subject: x\r\n\r\nbody'))!, /From/);
    assert.match(malformedReason(Buffer.from('From: a@b.test\r\nX: \0\r\n\r\n'))!, /NUL/);
    assert.match(malformedReason(Buffer.from('hello world\r\n\r\n'))!, /header/);
  });
});
