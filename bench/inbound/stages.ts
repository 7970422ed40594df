// Where the CPU of one received message goes, stage by stage, in one process with nothing else
// running in it (issue 27: "find where the 70 ms go before changing anything"): the same two
// DKIM-signed messages as bench/inbound/run.sh (10 KB; the same with a 1 MB attachment), each
// stage run alone N times and timed by process.cpuUsage (all threads of this process, so the
// DMARC worker counts). No database and no sockets: the PostgreSQL side is in run.sh's numbers.
// Usage: node --import tsx bench/inbound/stages.ts [N_SMALL=300] [N_LARGE=30]
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { senderDkimSignature } from '../../test/helpers/dkim-sign.js';
import { authenticateInbound } from '../../src/inbound/authenticate.js';
import { parseInbound } from '../../src/inbound/parse.js';
import { Spool } from '../../src/inbound/spool.js';
import { mayBeReport, REPORT_HEAD_BYTES, reportHeadPlausible, reportsIn } from '../../src/inbound/dmarc-report.js';
import { loadAverage, machine } from '../lib.js';

const nSmall = Number(process.argv[2] ?? 300);
const nLarge = Number(process.argv[3] ?? 30);
const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const records: Record<string, string[][]> = {
  's1._domainkey.sender.bench': [
    [`v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`],
  ],
  'sender.bench': [['v=spf1 ip4:127.0.0.1 -all']],
  '_dmarc.sender.bench': [['v=DMARC1; p=reject']],
};
const resolve = async (name: string, type: string) => {
  if (type === 'TXT' && records[name]) return records[name];
  throw Object.assign(new Error(`no ${type} for ${name}`), { code: 'ENOTFOUND' });
};

async function message(attachment?: Buffer): Promise<Buffer> {
  const text =
    'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore. '.repeat(40);
  const raw = await new MailComposer({
    from: 'Bench Sender <bench@sender.bench>',
    to: 'inbox@inbound.bench',
    subject: 'Benchmark message',
    text,
    html: `<html><body><p>${text}</p></body></html>`,
    attachments: attachment
      ? [{ filename: 'data.bin', content: attachment, contentType: 'application/octet-stream' }]
      : [],
  } as never)
    .compile()
    .build();
  const sig = await senderDkimSignature(raw, {
    signingDomain: 'sender.bench',
    selector: 's1',
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  });
  return Buffer.concat([Buffer.from(sig), raw]);
}

const drain = () =>
  new Writable({
    write(_c, _e, cb) {
      cb();
    },
  });
const spoolDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-stages-'));
function spoolOf(raw: Buffer): Spool {
  const s = new Spool(spoolDir);
  for (let i = 0; i < raw.length; i += 64 * 1024) s.write(raw.subarray(i, i + 64 * 1024)); // as smtp-server hands it over
  return s;
}

const stages: Record<string, (raw: Buffer) => Promise<unknown>> = {
  'spool: write (spills past 1 MB)': async (raw) => spoolOf(raw).dispose(),
  'spool: one read pass of the message': async (raw) => {
    const s = spoolOf(raw);
    await pipeline(s.stream(), drain());
    s.dispose();
  },
  'spool: one read pass feeding three readers (Spool.streams(3))': async (raw) => {
    const s = spoolOf(raw);
    await Promise.all(s.streams(3).map((r) => pipeline(r, drain())));
    s.dispose();
  },
  'authenticate (mailauth: DKIM body hash + RSA verify, SPF, DMARC)': async (raw) => {
    const s = spoolOf(raw);
    const a = await authenticateInbound(s.buffer() ?? s.stream(), {
      ip: '127.0.0.1',
      helo: 'h',
      sender: 'bench@sender.bench',
      mta: 'mx.test',
      resolve,
    });
    if (a.dkim !== 'pass' || a.spf !== 'pass') throw new Error(`auth ${JSON.stringify(a)}`);
    s.dispose();
  },
  'parse (mailparser: headers, text, html, base64 of the attachment, drained)': async (raw) => {
    const s = spoolOf(raw);
    await parseInbound(s.stream(), async (_m, content) => {
      let n = 0;
      for await (const c of content) n += (c as Buffer).length;
      return n;
    });
    s.dispose();
  },
  'DMARC candidate check of the attachment': async (raw) => {
    // What receive.ts does with an octet-stream attachment: its first bytes checked, and only a
    // possible report copied and handed to the worker (BENCH_DMARC_ALWAYS=1: every one, as before).
    if (raw.length < 100_000) return;
    if (!mayBeReport('application/octet-stream', 'data.bin')) return;
    if (process.env.BENCH_DMARC_ALWAYS || reportHeadPlausible(attachmentBytes.subarray(0, REPORT_HEAD_BYTES)))
      await reportsIn(Buffer.from(attachmentBytes));
  },
};

const attachmentBytes = randomBytes(1024 * 1024);
const small = await message();
const large = await message(attachmentBytes);
console.log(`inbound stages, CPU per message (all threads of this process); ${machine()}; load ${loadAverage()}`);
console.log(`messages: ${small.length} and ${large.length} bytes; runs: ${nSmall} and ${nLarge}`);
console.log(`${'stage'.padEnd(76)} ${'10 KB'.padStart(9)} ${'1 MB att.'.padStart(10)}`);
for (const [name, fn] of Object.entries(stages)) {
  const per: string[] = [];
  for (const [raw, n] of [
    [small, nSmall],
    [large, nLarge],
  ] as const) {
    for (let i = 0; i < Math.min(5, n); i++) await fn(raw); // warm up (module loading, JIT)
    const c0 = process.cpuUsage();
    for (let i = 0; i < n; i++) await fn(raw);
    const c = process.cpuUsage(c0);
    per.push(`${((c.user + c.system) / 1000 / n).toFixed(2)} ms`);
  }
  console.log(`${name.padEnd(76)} ${per[0].padStart(9)} ${per[1].padStart(10)}`);
}
fs.rmSync(spoolDir, { recursive: true, force: true });
process.exit(0);
