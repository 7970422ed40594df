// DKIM signing, verified by mailauth's authenticate() with keys published in the fake DNS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { Resolver } from 'node:dns/promises';
import { authenticate } from 'mailauth';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { dkimSign, DkimSignError } from '../../src/mta/dkim.js';

let dns: FakeDns;
let resolver: Resolver;

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ed = generateKeyPairSync('ed25519');
const rsaPem = rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const edPem = ed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const rsaPublic = rsa.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const edPublic = ed.publicKey.export({ type: 'spki', format: 'der' }).subarray(-32).toString('base64'); // RFC 8463: raw key

const message = Buffer.from(
  [
    'From: Sender <sender@signed.test>',
    'To: rcpt@example.org',
    'Subject: Hello',
    'Date: Mon, 01 Jan 2024 00:00:00 +0000',
    'Message-ID: <abc@signed.test>',
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'List-Unsubscribe: <https://signed.test/u/1>',
    'List-Unsubscribe-Post: List-Unsubscribe=One-Click',
    '',
    'Hello there.',
    '',
  ].join('\r\n'),
);

before(async () => {
  dns = await startFakeDns();
  resolver = new Resolver({ timeout: 1000, tries: 2 });
  resolver.setServers([dns.address]);
  // A 2048-bit key makes a TXT record over 255 bytes: the helper splits it into strings.
  dns.set('rsa1._domainkey.signed.test', 'TXT', [`v=DKIM1; k=rsa; p=${rsaPublic}`]);
  dns.set('ed1._domainkey.signed.test', 'TXT', [`v=DKIM1; k=ed25519; p=${edPublic}`]);
});
after(() => dns.close());

const verify = (raw: Buffer) =>
  authenticate(raw, {
    ip: '127.0.0.1',
    helo: 'mta.signed.test',
    sender: 'bounce@signed.test',
    mta: 'mx.example.org',
    resolver: (name: string, type: string) => resolver.resolve(name, type) as Promise<string[][] | string[]>,
  });

test('signs with RSA and the signature verifies as pass', async () => {
  const signed = await dkimSign(message, [
    { domain: 'signed.test', selector: 'rsa1', privateKey: rsaPem, algorithm: 'rsa-sha256' },
  ]);
  assert.ok(signed.toString().startsWith('DKIM-Signature: '));
  assert.ok(
    signed.subarray(signed.length - message.length).equals(message),
    'the message follows the header unchanged',
  );
  const header = signed.toString().split('\r\n\r\n')[0];
  assert.match(header, /h=[^;]*list-unsubscribe-post/i);
  assert.match(header, /c=relaxed\/relaxed/);
  const res = await verify(signed);
  assert.equal(res.dkim.results.length, 1);
  assert.equal(res.dkim.results[0].status.result, 'pass');
});

test('signs with RSA and Ed25519 in one pass, both verify as pass', async () => {
  const signed = await dkimSign(message, [
    { domain: 'signed.test', selector: 'rsa1', privateKey: rsaPem, algorithm: 'rsa-sha256' },
    { domain: 'signed.test', selector: 'ed1', privateKey: edPem, algorithm: 'ed25519-sha256' },
  ]);
  const res = await verify(signed);
  assert.deepEqual(
    res.dkim.results.map((r) => r.status.result),
    ['pass', 'pass'],
  );
});

test('a changed body fails verification', async () => {
  const signed = await dkimSign(message, [
    { domain: 'signed.test', selector: 'rsa1', privateKey: rsaPem, algorithm: 'rsa-sha256' },
  ]);
  const tampered = Buffer.from(signed.toString().replace('Hello there.', 'Hello th3re.'));
  const res = await verify(tampered);
  assert.notEqual(res.dkim.results[0].status.result, 'pass');
});

test('returns the message unchanged without keys, and throws on an unusable key', async () => {
  assert.equal(await dkimSign(message, []), message);
  await assert.rejects(
    dkimSign(message, [{ domain: 'signed.test', selector: 'x', privateKey: 'not a key', algorithm: 'rsa-sha256' }]),
    DkimSignError,
  );
});
