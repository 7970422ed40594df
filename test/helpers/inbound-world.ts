// The mail world (fake DNS, recording MX for dest.test, verified sending domain example.com) plus
// Mailroom's inbound MX listener, a receiving domain `inbound.test` whose MX record is published
// and verified, and an outside sender `sender.test` with DKIM, SPF and DMARC published, whose
// messages the tests sign and hand to the MX listener over real SMTP.
import { generateKeyPairSync } from 'node:crypto';
import net from 'node:net';
import { senderDkimSignature } from './dkim-sign.js';
import nodemailer from 'nodemailer';
import type { Config } from '../../src/config/schema.js';
import { startMailWorld, type MailWorld } from './mail-world.js';
import { publishRecords, type WireRecord } from './publish-records.js';
import { closeAll } from './close-all.js';
import { onFreePort } from './free-port.js';

export interface InboundWorld extends MailWorld {
  mxPort: number;
  receivingDomainId: string;
  /** DKIM-signs `raw` as sender.test (unless `sign: false`) and submits it to the MX listener. */
  deliver(
    raw: Buffer | string,
    env: { from: string; to: string[] },
    opts?: { sign?: boolean },
  ): Promise<{ response: string }>;
  /** Signs `raw` as sender.test. */
  sign(raw: Buffer): Promise<Buffer>;
}

export async function startInboundWorld(overrides: Partial<Config> = {}): Promise<InboundWorld> {
  const w = await onFreePort((port) =>
    startMailWorld({
      roles: ['api', 'worker', 'mx'],
      mxListen: [{ host: '127.0.0.1', port: 0 }],
      allowPrivateNetworks: true,
      httpListen: { host: '127.0.0.1', port },
      publicUrl: `http://127.0.0.1:${port}`,
      webhookRetrySchedule: [0, 200, 400],
      mxDnsCacheSeconds: 0,
      ...overrides, // tests change records between messages
    }),
  );
  const res = await w.t.api('POST', '/domains', {
    body: { name: 'inbound.test', capabilities: { sending: 'disabled', receiving: 'enabled' } },
  });
  if (res.status !== 201) throw new Error(JSON.stringify(res.body));
  publishRecords(w.dns, 'inbound.test', res.body.records as WireRecord[]);
  const v = await w.t.api('POST', `/domains/${res.body.id}/verify`);
  if (v.status !== 200) throw new Error(JSON.stringify(v.body));

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pub = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  w.dns.set('s1._domainkey.sender.test', 'TXT', [`v=DKIM1; k=rsa; p=${pub}`]);
  w.dns.set('sender.test', 'TXT', ['v=spf1 ip4:127.0.0.1 -all']);
  w.dns.set('_dmarc.sender.test', 'TXT', ['v=DMARC1; p=reject']);
  const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const mxPort = w.t.app.mxListeners![0].port;

  const sign = async (raw: Buffer) => {
    const signature = await senderDkimSignature(raw, {
      signingDomain: 'sender.test',
      selector: 's1',
      privateKey: keyPem,
    });
    return Buffer.concat([Buffer.from(signature), raw]);
  };
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port: mxPort,
    secure: false,
    tls: { rejectUnauthorized: false },
    name: 'client.sender.test',
  });
  return {
    ...w,
    mxPort,
    receivingDomainId: res.body.id,
    sign,
    async deliver(raw, env, opts = {}) {
      const buf = Buffer.isBuffer(raw) ? raw : Buffer.from(raw);
      const signed = opts.sign === false ? buf : await sign(buf);
      const info = await transport.sendMail({ envelope: { from: env.from, to: env.to }, raw: signed });
      return { response: info.response };
    },
    close: () =>
      closeAll(
        () => transport.close(),
        () => w.close(),
      ),
  };
}

/** A raw SMTP conversation: sends each line, returns every reply (for refusals nodemailer hides). */
export async function smtpTalk(
  port: number,
  lines: (string | Buffer)[],
  opts: { keepOpen?: boolean } = {},
): Promise<{ replies: string[]; socket: net.Socket }> {
  const socket = net.connect(port, '127.0.0.1');
  const replies: string[] = [];
  let buf = '';
  let waiter: (() => void) | undefined;
  socket.on('data', (d) => {
    buf += d.toString();
    let i: number;
    while ((i = buf.search(/^\d{3} .*\r\n/m)) !== -1) {
      const end = buf.indexOf('\r\n', i) + 2;
      replies.push(buf.slice(0, end).trim());
      buf = buf.slice(end);
      waiter?.();
    }
  });
  socket.on('error', () => undefined);
  const next = (n: number) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply; got ${JSON.stringify(replies)}`)), 10_000);
      const check = () => {
        if (replies.length >= n) {
          clearTimeout(timer);
          waiter = undefined;
          resolve();
        }
      };
      waiter = check;
      check();
    });
  await next(1);
  for (const line of lines) {
    const n = replies.length + 1;
    socket.write(Buffer.isBuffer(line) ? line : `${line}\r\n`);
    if (Buffer.isBuffer(line)) continue; // message bytes: no reply until the final "."
    await next(n);
  }
  if (!opts.keepOpen) socket.end();
  return { replies, socket };
}
