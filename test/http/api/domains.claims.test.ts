// Domain claims through the resend SDK (resend.domains.claims.create/get/verify): a team proves
// with a TXT record, published on the fake DNS server that domain verification also asks, that it
// controls a domain another team holds; the domain moves with fresh DKIM keys and its former
// holder is told (domain.deleted to its webhook, and the event its dashboard lists). Every status
// of the SDK's DomainClaimStatus is reached: pending, failed, blocked (scheduled emails, grace
// period), verified, completed, superseded, canceled, expired.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resend } from 'resend';
import { startMailWorld, type MailWorld } from '../../helpers/mail-world.js';
import { startTestApp } from '../../helpers/harness.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { until } from '../../helpers/until.js';
import { teamCreate } from '../../../src/store/teams.js';
import { sleep } from '../../../src/lib/time.js';

describe('domain claims through the SDK', () => {
  let w: MailWorld;
  let rcv: Receiver;
  let holder: Resend; // the default team: holds example.com (mail world) and the domains made below
  let claimant: Resend;
  let claimantKey: string;
  let third: Resend;

  const team = async (name: string) => {
    const t = await teamCreate(w.t.db.pool, name);
    const key = (await w.t.app.apiKeys.create(t.id, { name })).token;
    return { key, resend: new Resend(key, { baseUrl: w.t.url }), id: t.id };
  };
  const data = async <T>(p: PromiseLike<{ data: T | null; error: unknown }>): Promise<T> => {
    const r = await p;
    assert.equal(r.error, null, JSON.stringify(r.error));
    return r.data!;
  };
  const hooks = (type: string) =>
    rcv.received.map((r) => JSON.parse(r.body) as { type: string; data: any }).filter((e) => e.type === type);

  before(async () => {
    w = await startMailWorld({ allowPrivateNetworks: true });
    holder = w.t.resend;
    ({ resend: claimant, key: claimantKey } = await team('Claimant'));
    ({ resend: third } = await team('Third'));
    rcv = await startReceiver();
    await data(holder.webhooks.create({ endpoint: rcv.url, events: ['domain.deleted', 'domain.updated'] }));
  });
  after(async () => {
    await rcv?.close();
    await w?.close();
  });

  test('a claim is refused for a domain nobody holds or the team holds itself', async () => {
    const none = await claimant.domains.claims.create({ name: 'nobody-has-it.example' });
    assert.equal(none.error?.name, 'validation_error');
    assert.match(none.error!.message, /add it with POST \/domains/);
    const own = await holder.domains.claims.create({ name: 'example.com' });
    assert.equal(own.error?.name, 'validation_error');
    assert.equal((await claimant.domains.claims.get('00000000-0000-4000-8000-000000000000')).error?.name, 'not_found');
  });

  test('pending → failed → blocked by scheduled emails → completed: the domain moves with new keys and its holder is told', async () => {
    const old = await data(holder.domains.get(w.domainId));
    const c = await data(claimant.domains.claims.create({ name: 'example.com', region: 'eu-west-1' }));
    assert.equal(c.object, 'domain_claim');
    assert.equal(c.status, 'pending');
    assert.equal(c.name, 'example.com');
    assert.equal(c.region, 'eu-west-1');
    assert.deepEqual([c.record.type, c.record.name, c.record.ttl], ['TXT', 'example.com', 'Auto']);
    assert.match(c.record.value, /^mailroom-domain-claim=[0-9a-f]{32}$/);
    assert.deepEqual([c.blocked_reason, c.failure_reason], [null, null]);
    const week = Date.parse(c.expires_at.replace(' ', 'T').replace(/\+00$/, 'Z')) - Date.now();
    assert.ok(week > 6.9 * 86_400_000 && week <= 7 * 86_400_000, c.expires_at);
    // The identical claim again: 200 with the same claim, unchanged (raw HTTP shows the status).
    const again = await w.t.api('POST', '/domains/claim', {
      key: claimantKey,
      body: { name: 'example.com', region: 'eu-west-1' },
    });
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.id, c.id);
    assert.equal((await data(claimant.domains.claims.get(c.domain_id!))).id, c.id);
    // Another team's claim of the same domain, left pending: superseded when this one completes.
    const rival = await data(third.domains.claims.create({ name: 'example.com' }));

    // No TXT record yet: failed, saying why; verifying again retries.
    const failed = await data(claimant.domains.claims.verify(c.domain_id!));
    assert.equal(failed.status, 'failed');
    assert.match(failed.failure_reason!, /TXT/);

    // Published, but the holder has an email scheduled from the domain: blocked until it is gone.
    const scheduled = await data(
      holder.emails.send({
        from: 'a@example.com',
        to: 'x@dest.test',
        subject: 'Later',
        text: 'later',
        scheduledAt: 'in 1 hour',
      }),
    );
    w.dns.set('example.com', 'TXT', [c.record.value]);
    const blocked = await data(claimant.domains.claims.verify(c.domain_id!));
    assert.deepEqual([blocked.status, blocked.blocked_reason], ['blocked', 'pending_scheduled_emails']);
    assert.equal((await data(holder.domains.get(w.domainId))).name, 'example.com', 'still the holder’s');
    await data(holder.emails.cancel(scheduled.id));

    const done = await data(claimant.domains.claims.verify(c.domain_id!));
    assert.deepEqual([done.status, done.blocked_reason, done.failure_reason], ['completed', null, null]);
    assert.equal((await data(claimant.domains.claims.get(c.domain_id!))).status, 'completed');
    assert.equal((await data(claimant.domains.claims.verify(c.domain_id!))).status, 'completed', 'verify again: no-op');

    // The claimant has the domain, under the claim's domain_id, with the claim's settings and new keys.
    const mine = await data(claimant.domains.get(c.domain_id!));
    assert.deepEqual([mine.name, mine.region, mine.status], ['example.com', 'eu-west-1', 'not_started']);
    const dkim = (d: typeof old) => d.records.find((r) => r.record === 'DKIM')!.value;
    assert.notEqual(dkim(mine), dkim(old), 'fresh DKIM keys');
    // The holder has it no more, and is told: domain.deleted to its webhook, and in its event log.
    assert.equal((await holder.domains.get(w.domainId)).error?.name, 'not_found');
    assert.ok(!(await data(holder.domains.list())).data.some((d) => d.name === 'example.com'));
    const told = await until('domain.deleted at the holder’s webhook', async () => hooks('domain.deleted')[0], 20_000);
    assert.equal(told.data.id, w.domainId);
    assert.equal(told.data.name, 'example.com');
    assert.deepEqual([told.data.reason, told.data.claim.id, told.data.claim.status], ['claimed', c.id, 'completed']);
    const { rows } = await w.t.db.pool.query(
      `SELECT team_id, data FROM email_events WHERE type = 'domain.deleted' AND email_id = $1`,
      [w.domainId],
    );
    assert.equal(rows.length, 1);
    assert.equal(rows[0].data.reason, 'claimed');
    // The dashboard's list (GET /domains/claims): the holder sees what happened, never who or the record.
    const seen = await w.t.api('GET', '/domains/claims');
    assert.equal(seen.status, 200, JSON.stringify(seen.body));
    const lost = seen.body.data.find((x: { id: string }) => x.id === c.id);
    assert.deepEqual([lost.side, lost.name, lost.status], ['holder', 'example.com', 'completed']);
    assert.ok(lost.completed_at && !('record' in lost) && !('domain_id' in lost), JSON.stringify(lost));
    const own = (await w.t.api('GET', '/domains/claims', { key: claimantKey })).body.data;
    assert.deepEqual(
      own.filter((x: { id: string }) => x.id === c.id).map((x: { side: string; status: string }) => [x.side, x.status]),
      [['claimant', 'completed']],
    );
    // The rival claim lost: superseded.
    assert.equal((await data(third.domains.claims.get(rival.domain_id!))).status, 'superseded');
  });

  test('the same team claiming again with other settings supersedes its open claim and keeps the domain id', async () => {
    await data(holder.domains.create({ name: 'twice.example' }));
    const first = await data(claimant.domains.claims.create({ name: 'twice.example' }));
    const second = await data(claimant.domains.claims.create({ name: 'twice.example', region: 'sa-east-1' }));
    assert.notEqual(second.id, first.id);
    assert.equal(second.domain_id, first.domain_id);
    assert.equal(second.status, 'pending');
    const { rows } = await w.t.db.pool.query('SELECT status FROM domain_claims WHERE id = $1', [first.id]);
    assert.equal(rows[0].status, 'superseded');
    assert.equal((await data(claimant.domains.claims.get(first.domain_id!))).id, second.id, 'get: the latest');
  });

  test('two teams verifying claims on one domain at once: one completes, the other is superseded', async () => {
    await data(holder.domains.create({ name: 'race.example' }));
    const a = await data(claimant.domains.claims.create({ name: 'race.example' }));
    const b = await data(third.domains.claims.create({ name: 'race.example' }));
    w.dns.set('race.example', 'TXT', [a.record.value, b.record.value]);
    const [ra, rb] = await Promise.all([
      claimant.domains.claims.verify(a.domain_id!),
      third.domains.claims.verify(b.domain_id!),
    ]);
    assert.equal(ra.error, null, JSON.stringify(ra.error));
    assert.equal(rb.error, null, JSON.stringify(rb.error));
    assert.deepEqual([ra.data!.status, rb.data!.status].sort(), ['completed', 'superseded']);
    const { rows } = await w.t.db.pool.query(`SELECT count(*)::int AS n FROM domains WHERE name = 'race.example'`);
    assert.equal(rows[0].n, 1);
  });

  test('canceled when the holder let the domain go; expired after its expiry', async () => {
    const d = await data(holder.domains.create({ name: 'let-go.example' }));
    const c = await data(third.domains.claims.create({ name: 'let-go.example' }));
    w.dns.set('let-go.example', 'TXT', [c.record.value]);
    await data(holder.domains.remove(d.id));
    const canceled = await data(third.domains.claims.verify(c.domain_id!));
    assert.equal(canceled.status, 'canceled');
    assert.match(canceled.failure_reason!, /no longer held by another team/);
    assert.equal((await data(third.domains.create({ name: 'let-go.example' }))).name, 'let-go.example');

    await data(holder.domains.create({ name: 'slow.example' }));
    const e = await data(third.domains.claims.create({ name: 'slow.example' }));
    // A week passes (the row's expiry moved back rather than the clock forward).
    await w.t.db.pool.query(`UPDATE domain_claims SET expires_at = now() - interval '1 second' WHERE id = $1`, [e.id]);
    assert.equal((await data(third.domains.claims.get(e.domain_id!))).status, 'expired');
    w.dns.set('slow.example', 'TXT', [e.record.value]);
    assert.equal((await data(third.domains.claims.verify(e.domain_id!))).status, 'expired', 'too late to verify');
    assert.ok(
      (await data(holder.domains.list())).data.some((x) => x.name === 'slow.example'),
      'nothing moved',
    );
  });

  test('with a grace period: verified (the holder told), blocked while it lasts, then completed', async () => {
    const graced = await startTestApp(
      { dnsServers: [w.dns.address], domainClaimGraceSeconds: 2, allowPrivateNetworks: true },
      { db: w.t.db },
    );
    try {
      const d = await data(holder.domains.create({ name: 'graced.example' }));
      const claimantThere = new Resend(claimantKey, { baseUrl: graced.url });
      const c = await data(claimantThere.domains.claims.create({ name: 'graced.example' }));
      w.dns.set('graced.example', 'TXT', [c.record.value]);
      const verified = await data(claimantThere.domains.claims.verify(c.domain_id!));
      assert.deepEqual([verified.status, verified.blocked_reason], ['verified', null]);
      const notice = await until(
        'the holder told of the verified claim',
        async () => hooks('domain.updated').find((e) => e.data.id === d.id && e.data.claim),
        20_000,
      );
      assert.deepEqual([notice.data.claim.id, notice.data.claim.status], [c.id, 'verified']);
      const warned = (await w.t.api('GET', '/domains/claims')).body.data.find((x: { id: string }) => x.id === c.id);
      assert.deepEqual([warned.side, warned.status], ['holder', 'verified'], 'the holder sees it coming');
      const wait = await data(claimantThere.domains.claims.verify(c.domain_id!));
      assert.deepEqual([wait.status, wait.blocked_reason], ['blocked', 'grace_period']);
      assert.equal((await data(holder.domains.get(d.id))).name, 'graced.example');
      await sleep(2100);
      const done = await data(claimantThere.domains.claims.verify(c.domain_id!));
      assert.deepEqual([done.status, done.blocked_reason], ['completed', null]);
      assert.equal((await data(claimant.domains.get(c.domain_id!))).name, 'graced.example');
    } finally {
      await graced.close();
    }
  });
});
