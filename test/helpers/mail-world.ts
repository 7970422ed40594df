// A small mail world for end-to-end tests: a fake DNS server, a recording MX for `dest.test`,
// Mailroom (mx delivery mode) pointed at both, and a verified sending domain `example.com`
// whose records are published. Also a receiving-side DKIM/SPF/DMARC check with mailauth.
import { Resolver } from 'node:dns/promises';
import { authenticate } from 'mailauth';
import type { Config } from '../../src/config/schema.js';
import { startFakeDns, type FakeDns } from './fake-dns.js';
import { startRecordingSmtp, type RecordingSmtp, type RecordedMessage } from './recording-smtp.js';
import { startTestApp, type TestApp } from './harness.js';
import { publishRecords, type WireRecord } from './publish-records.js';
import { sleep } from '../../src/lib/time.js';
import { closeAll } from './close-all.js';

export interface MailWorld {
  dns: FakeDns;
  mx: RecordingSmtp;
  t: TestApp;
  domainId: string;
  close(): Promise<void>;
}

export async function startMailWorld(overrides: Partial<Config> = {}): Promise<MailWorld> {
  const dns = await startFakeDns();
  const mx = await startRecordingSmtp();
  dns.set('mx.mailroom.test', 'A', ['127.0.0.1']);
  dns.set('dest.test', 'MX', [{ exchange: 'mx1.dest.test', priority: 10 }]);
  dns.set('mx1.dest.test', 'A', ['127.0.0.1']);
  let t: TestApp | undefined;
  let domainId: string;
  try {
    t = await startTestApp({
      dnsServers: [dns.address],
      outboundPort: mx.port,
      heloName: 'out.mailroom.test',
      ...overrides,
    });
    const { data, error } = await t.resend.domains.create({ name: 'example.com' });
    if (error) throw new Error(error.message);
    publishRecords(dns, 'example.com', data!.records as unknown as WireRecord[]);
    await t.resend.domains.verify(data!.id);
    domainId = data!.id;
  } catch (err) {
    // What started is stopped, or the test file would hang until its timeout on the open servers.
    await closeAll(
      () => t?.close(),
      () => mx.close(),
      () => dns.close(),
    );
    throw err;
  }
  const app = t;
  const world: MailWorld = {
    dns,
    mx,
    t: app,
    domainId,
    // world.mx: a test may have replaced the recording MX.
    close: () =>
      closeAll(
        () => app.close(),
        () => world.mx.close(),
        () => dns.close(),
      ),
  };
  return world;
}

/** Polls GET /emails/:id until last_event is one of `want` (bounded). */
export async function waitForLastEvent(t: TestApp, id: string, want: string[], timeoutMs = 15_000): Promise<string> {
  const until = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < until) {
    last = (await t.api('GET', `/emails/${id}`)).body.last_event;
    if (want.includes(last)) return last;
    await sleep(50);
  }
  throw new Error(`email ${id} stayed ${last}, wanted ${want.join('|')}`);
}

/** Makes every pending delivery due now (instead of waiting out the retry ladder) and wakes the workers. */
export async function nudgeDeliveries(t: TestApp): Promise<void> {
  await t.db.pool.query("UPDATE jobs SET run_at = now() WHERE kind = 'email.deliver' AND state = 'pending'");
  await t.db.pool.query("SELECT pg_notify('mailroom_jobs', 'email.deliver')");
}

/** mailauth's authenticate() as the receiving server runs it, resolving through the fake DNS. */
function receiverCheck(dns: FakeDns, msg: RecordedMessage) {
  const r = new Resolver();
  r.setServers([dns.address]);
  const resolver = (name: string, rr: string) => r.resolve(name, rr as never) as Promise<never>;
  return authenticate(msg.raw, {
    ip: '127.0.0.1',
    helo: msg.heloName,
    sender: msg.mailFrom,
    mta: 'mx1.dest.test',
    resolver,
  });
}

/** DKIM, SPF and DMARC as the receiving server sees them, resolved through the fake DNS. */
export async function receiverAuth(dns: FakeDns, msg: RecordedMessage) {
  const res = await receiverCheck(dns, msg);
  return {
    dkim: res.dkim?.results?.[0]?.status?.result,
    spf: res.spf && typeof res.spf === 'object' ? res.spf.status?.result : undefined,
    dmarc: res.dmarc && typeof res.dmarc === 'object' ? res.dmarc.status?.result : undefined,
  };
}

/** Every DKIM signature of a received message as `algorithm selector result`, in header order. */
export async function receiverDkimSignatures(dns: FakeDns, msg: RecordedMessage): Promise<string[]> {
  const res = await receiverCheck(dns, msg);
  return (res.dkim?.results ?? []).map(
    (r: { algo?: string; selector?: string; status?: { result?: string } }) =>
      `${r.algo} ${r.selector} ${r.status?.result}`,
  );
}
