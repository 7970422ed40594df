// The cache of DKIM public keys built by mailauth (dkim-key-cache.ts): a key record seen again is
// not built again, a changed record is, and verdicts are those without the cache.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { authenticateInbound } from '../../src/inbound/authenticate.js';
import { installKeyCache } from '../../src/inbound/dkim-key-cache.js';
import { senderDkimSignature } from '../helpers/dkim-sign.js';

const keyPair = () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    record: `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
    pem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
};
const records = new Map<string, string>([
  ['sender.test', 'v=spf1 ip4:127.0.0.1 -all'],
  ['_dmarc.sender.test', 'v=DMARC1; p=reject'],
]);
const resolve = async (name: string, type: string) => {
  const r = type === 'TXT' ? records.get(name) : undefined;
  if (r === undefined) throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
  return [[r]];
};
async function signed(pem: string): Promise<Buffer> {
  const raw: Buffer = await new MailComposer({
    from: 'a@sender.test',
    to: 'b@inbound.test',
    subject: 's',
    text: 'hello',
  } as never)
    .compile()
    .build();
  const sig = await senderDkimSignature(raw, { signingDomain: 'sender.test', selector: 's1', privateKey: pem });
  return Buffer.concat([Buffer.from(sig), raw]);
}
const auth = (msg: Buffer) =>
  authenticateInbound(msg, { ip: '127.0.0.1', helo: 'h', sender: 'a@sender.test', mta: 'mx.test', resolve });

test('a key record seen again is not built again; a changed record is, and a wrong key still fails', async () => {
  const cache = installKeyCache();
  const k1 = keyPair();
  records.set('s1._domainkey.sender.test', k1.record);
  const m1 = await signed(k1.pem);
  const before = cache.built();
  for (let i = 0; i < 3; i++) assert.equal((await auth(m1)).dkim, 'pass');
  assert.equal(
    cache.built() - before,
    1,
    'built once for three messages (mailauth still takes getPublicKey from its tools)',
  );

  const k2 = keyPair(); // the sender rotates its key under the same selector
  records.set('s1._domainkey.sender.test', k2.record);
  assert.equal((await auth(await signed(k2.pem))).dkim, 'pass');
  assert.equal(cache.built() - before, 2);
  assert.equal((await auth(m1)).dkim, 'fail', 'a message signed with the old key fails against the new record');

  records.set('s1._domainkey.sender.test', 'v=DKIM1; k=rsa; p=not-a-key');
  assert.notEqual((await auth(m1)).dkim, 'pass');
  assert.notEqual((await auth(m1)).dkim, 'pass', 'a record that is no key is not remembered as one');
});

test('ed25519 and rsa records, and one record text under two names: each verdict is the uncached one', async () => {
  installKeyCache();
  const rsa = keyPair();
  const ed = generateKeyPairSync('ed25519');
  const edRaw = ed.publicKey.export({ type: 'spki', format: 'der' }).subarray(-32).toString('base64');
  const edPem = ed.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const sign = async (pem: string, selector: string) => {
    const raw: Buffer = await new MailComposer({
      from: 'a@sender.test',
      to: 'b@inbound.test',
      subject: 's',
      text: 'hello',
    } as never)
      .compile()
      .build();
    const sig = await senderDkimSignature(raw, { signingDomain: 'sender.test', selector, privateKey: pem });
    return Buffer.concat([Buffer.from(sig), raw]);
  };
  records.set('s1._domainkey.sender.test', rsa.record);
  records.set('s2._domainkey.sender.test', rsa.record); // the same text under another name
  records.set('e1._domainkey.sender.test', `v=DKIM1; k=ed25519; p=${edRaw}`);
  const viaS1 = await sign(rsa.pem, 's1');
  const viaS2 = await sign(rsa.pem, 's2');
  const viaEd = await sign(edPem, 'e1');
  const edWithRsaSelector = await sign(edPem, 's1'); // an ed25519 signature against an rsa record
  for (let i = 0; i < 2; i++) {
    assert.equal((await auth(viaS1)).dkim, 'pass');
    assert.equal((await auth(viaS2)).dkim, 'pass');
    assert.equal((await auth(viaEd)).dkim, 'pass');
    assert.notEqual((await auth(edWithRsaSelector)).dkim, 'pass');
  }
  // The ed25519 record now claims k=rsa: a key of the wrong type, never a pass from a cached key.
  records.set('e1._domainkey.sender.test', `v=DKIM1; k=rsa; p=${edRaw}`);
  assert.notEqual((await auth(viaEd)).dkim, 'pass');
});
