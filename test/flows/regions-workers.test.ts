import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp } from '../helpers/harness.js';
import { publishRecords, type WireRecord } from '../helpers/publish-records.js';
import { startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { sleep } from '../../src/lib/time.js';

describe('regions and several workers on one database', () => {
  let w: MailWorld;
  before(async () => {
    // This process's worker serves us-east-1 only; eu-west-1 has its own egress settings.
    w = await startMailWorld({
      regions: ['us-east-1'],
      regionEgress: { 'eu-west-1': { heloName: 'eu.out.mailroom.test', sourceAddress: '127.0.0.1' } },
    });
  });
  after(async () => {
    await w.close();
  });

  test('a worker claims only the deliveries of its regions, and each region uses its egress settings', async () => {
    const { data: dom } = await w.t.resend.domains.create({ name: 'eu.example', region: 'eu-west-1' });
    publishRecords(w.dns, 'eu.example', dom!.records as unknown as WireRecord[]);
    await w.t.resend.domains.verify(dom!.id);
    const eu = (
      await w.t.resend.emails.send({ from: 'eu@eu.example', to: 'eu-rcpt@dest.test', subject: 'from eu', text: 'x' })
    ).data!;
    const us = (
      await w.t.resend.emails.send({ from: 'us@example.com', to: 'us-rcpt@dest.test', subject: 'from us', text: 'x' })
    ).data!;
    await waitForLastEvent(w.t, us.id, ['delivered']);
    await sleep(1000);
    assert.equal(
      (await w.t.resend.emails.get(eu.id)).data!.last_event,
      'sent',
      'the us-east-1 worker left the eu-west-1 delivery alone',
    );
    const euWorker = await startTestApp(
      {
        roles: ['worker'],
        regions: ['eu-west-1'],
        dnsServers: [w.dns.address],
        outboundPort: w.mx.port,
        heloName: 'default.out.test',
        regionEgress: { 'eu-west-1': { heloName: 'eu.out.mailroom.test', sourceAddress: '127.0.0.1' } },
      },
      { db: w.t.db },
    );
    try {
      await waitForLastEvent(w.t, eu.id, ['delivered']);
    } finally {
      await euWorker.close();
    }
    assert.equal(w.mx.messages.find((m) => m.rcptTo.includes('eu-rcpt@dest.test'))!.heloName, 'eu.out.mailroom.test');
    assert.equal(w.mx.messages.find((m) => m.rcptTo.includes('us-rcpt@dest.test'))!.heloName, 'out.mailroom.test');
  });

  test('two worker processes on one database deliver every message exactly once', async () => {
    const second = await startTestApp(
      { roles: ['worker'], dnsServers: [w.dns.address], outboundPort: w.mx.port, heloName: 'second.out.test' },
      { db: w.t.db },
    );
    try {
      const before = w.mx.messages.length;
      const ids: string[] = [];
      for (let b = 0; b < 3; b++) {
        const batch = Array.from({ length: 100 }, (_, i) => ({
          from: 'bulk@example.com',
          to: `r${b * 100 + i}@dest.test`,
          subject: `bulk ${b * 100 + i}`,
          text: 'x',
        }));
        const { data, error } = await w.t.resend.batch.send(batch);
        assert.equal(error, null);
        ids.push(...data!.data.map((d) => d.id));
      }
      const deadline = Date.now() + 60_000;
      while (w.mx.messages.length - before < ids.length && Date.now() < deadline) await sleep(100);
      await sleep(500); // a duplicate would show up here
      const got = w.mx.messages.slice(before);
      const perRcpt = new Map<string, number>();
      for (const m of got) for (const r of m.rcptTo) perRcpt.set(r, (perRcpt.get(r) ?? 0) + 1);
      assert.equal(perRcpt.size, 300);
      assert.deepEqual([...new Set(perRcpt.values())], [1]);
      const helos = new Set(got.map((m) => m.heloName));
      assert.ok(
        helos.has('second.out.test') && helos.has('out.mailroom.test'),
        `both workers delivered: ${[...helos]}`,
      );
    } finally {
      await second.close();
    }
  });
});
