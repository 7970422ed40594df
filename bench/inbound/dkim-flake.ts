import { generateKeyPairSync } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { authenticateInbound } from '../../src/inbound/authenticate.js';
import { installKeyCache } from '../../src/inbound/dkim-key-cache.js';
import { senderDkimSignature } from '../../test/helpers/dkim-sign.js';
async function main() {
  if (process.argv[2] === 'cache') installKeyCache();
  const records = new Map<string, string>([
    ['sender.test', 'v=spf1 ip4:127.0.0.1 -all'],
    ['_dmarc.sender.test', 'v=DMARC1; p=reject'],
  ]);
  const resolve = async (name: string, type: string) => {
    const r = type === 'TXT' ? records.get(name) : undefined;
    if (r === undefined) throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
    return [[r]];
  };
  let fails = 0;
  const bad: string[] = [];
  const N = Number(process.argv[3] ?? 150);
  for (let i = 0; i < N; i++) {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 + (i % 2) * 1024 });
    records.set(
      's1._domainkey.sender.test',
      `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
    );
    const raw: Buffer = await new MailComposer({
      from: 'a@sender.test',
      to: 'b@inbound.test',
      subject: 's',
      text: 'hello',
    } as never)
      .compile()
      .build();
    const sig = await senderDkimSignature(raw, {
      signingDomain: 'sender.test',
      selector: 's1',
      privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    const msg = Buffer.concat([Buffer.from(sig), raw]);
    for (let j = 0; j < 2; j++) {
      const a = await authenticateInbound(msg, {
        ip: '127.0.0.1',
        helo: 'h',
        sender: 'a@sender.test',
        mta: 'mx.test',
        resolve,
      });
      if (a.dkim !== 'pass') {
        fails++;
        bad.push(`${a.dkim} try ${j} key ${1024 + (i % 2) * 1024}`);
        if (bad.length < 3) console.log(JSON.stringify(a), msg.toString());
      }
    }
  }
  console.log(process.argv[2], 'fails', fails, 'of', N, bad.slice(0, 5));
}
void main();
