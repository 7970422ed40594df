// Starts Mailroom's inbound MX (roles api,mx; no worker, so only receiving is measured) on a fresh
// database for the inbound benchmark, with a fake authoritative DNS server on loopback publishing
// SPF, DKIM and DMARC for the sending domain `sender.bench`, a receiving domain `inbound.bench`,
// and writes the messages smtp-source sends (-F): a DKIM-signed 10 KB multipart message and one
// with a 1 MB attachment. Prints one JSON line {mx_port, database_url, pid, files} and runs until
// stdin closes; then stops the service and drops the database.
// Usage: serve.ts [MX_PORT=26525] [HTTP_PORT=0 (any free port)]; BENCH_TMP: the directory for the
// message files (default a fresh one under the system's temporary directory).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { senderDkimSignature } from '../../test/helpers/dkim-sign.js';
import { startFakeDns } from '../../test/helpers/fake-dns.js';
import { api, freshDb, KEY, serveUntilStdinEnds, startService } from '../lib.js';

const port = Number(process.argv[2] ?? 26525);
const httpPort = Number(process.argv[3] ?? 0);
const dir = process.env.BENCH_TMP ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-inbound-'));
const dns = await startFakeDns();
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
dns.set('s1._domainkey.sender.bench', 'TXT', [
  `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`,
]);
dns.set('sender.bench', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
dns.set('_dmarc.sender.bench', 'TXT', ['v=DMARC1; p=reject']);

/** A signed message as smtp-source -F wants it: LF line ends (it sends CRLF), no dot-stuffing. */
async function messageFile(name: string, attachment?: Buffer): Promise<string> {
  const para = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. ';
  const text = para.repeat(40); // ~4 KB of text, and the same as HTML: ~10 KB in all
  const raw = await new MailComposer({
    from: 'Bench Sender <bench@sender.bench>',
    to: 'inbox@inbound.bench',
    subject: 'Benchmark message',
    messageId: `<${name}@sender.bench>`,
    text,
    html: `<html><body><p>${text}</p></body></html>`,
    attachments: attachment
      ? [{ filename: 'data.bin', content: attachment, contentType: 'application/octet-stream' }]
      : [],
  } as never)
    .compile()
    .build();
  const signature = await senderDkimSignature(raw, {
    signingDomain: 'sender.bench',
    selector: 's1',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
  const file = path.join(dir, `${name}.eml`);
  fs.writeFileSync(
    file,
    Buffer.concat([Buffer.from(signature), raw])
      .toString('latin1')
      .replace(/\r\n/g, '\n'),
    'latin1',
  );
  return file;
}

const db = await freshDb();
const svc = await startService({
  MAILROOM_DATABASE_URL: db.url,
  MAILROOM_BOOTSTRAP_API_KEY: KEY,
  MAILROOM_ROLES: 'api,mx',
  MAILROOM_DELIVERY_MODE: 'capture',
  MAILROOM_RATE_LIMIT: '1000000',
  MAILROOM_MX_LISTEN: `127.0.0.1:${port}`,
  MAILROOM_HTTP_LISTEN: `127.0.0.1:${httpPort}`,
  MAILROOM_DNS_SERVERS: dns.address,
  MAILROOM_MX_RATE_LIMIT: '10000000',
  MAILROOM_MX_MAX_CONNECTIONS_PER_IP: '1000',
});
await serveUntilStdinEnds(
  async () => {
    // capture mode: domains verify without DNS, so the receiving MX record counts as verified.
    const dom = await api(svc.url, KEY, 'POST', '/domains', {
      name: 'inbound.bench',
      capabilities: { sending: 'disabled', receiving: 'enabled' },
    });
    await api(svc.url, KEY, 'POST', `/domains/${dom.id}/verify`);
    const files = { small: await messageFile('small'), large: await messageFile('large', randomBytes(1024 * 1024)) };
    return { mx_port: port, database_url: db.url, pid: svc.proc.pid, files };
  },
  async () => {
    await svc.stop();
    await db.drop();
    await dns.close();
  },
);
