import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { startFakeDns, type FakeDns } from '../../helpers/fake-dns.js';
import { publishRecords, type WireRecord } from '../../helpers/publish-records.js';
import { closeAll } from '../../helpers/close-all.js';

describe('domains through the official resend SDK, verified against a fake DNS server', () => {
  let t: TestApp;
  let dns: FakeDns;
  before(async () => {
    dns = await startFakeDns();
    t = await startTestApp({ dnsServers: [dns.address], publicUrl: 'https://mail.mailroom.test' });
  });
  after(() =>
    closeAll(
      () => t.close(),
      () => dns.close(),
    ),
  );

  test('creating a domain returns the records to publish: DKIM, SPF MX and TXT on the return path, DMARC', async () => {
    const { data, error } = await t.resend.domains.create({ name: 'Example.COM' });
    assert.equal(error, null);
    assert.equal(data!.name, 'example.com');
    assert.equal(data!.status, 'not_started');
    assert.equal(data!.region, 'us-east-1');
    assert.deepEqual(data!.capabilities, { sending: 'enabled', receiving: 'disabled' });
    assert.equal((data as unknown as { object?: string }).object, undefined);
    const recs = data!.records as unknown as WireRecord[];
    const dkim = recs.find((r) => r.record === 'DKIM')!;
    assert.equal(dkim.name, 'mailroom._domainkey');
    assert.equal(dkim.type, 'TXT');
    assert.match(dkim.value, /^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]{360,}$/); // a 2048-bit key
    assert.deepEqual(
      recs.filter((r) => r.record === 'SPF').map((r) => [r.name, r.type, r.value]),
      [
        ['send', 'MX', 'mx.mailroom.test'],
        ['send', 'TXT', 'v=spf1 a:mx.mailroom.test ~all'],
      ],
    );
    assert.equal(recs.find((r) => r.type === 'MX')!.priority, 10);
    assert.deepEqual(
      recs.find((r) => r.record === 'DMARC'),
      { record: 'DMARC', name: '_dmarc', value: 'v=DMARC1; p=none;', type: 'TXT', ttl: 'Auto', status: 'not_started' },
    );
    for (const r of recs) assert.equal(r.status, 'not_started');
  });

  test('the DKIM private key is stored encrypted, not in PEM', async () => {
    const { rows } = await t.db.pool.query("SELECT dkim_private_key FROM domains WHERE name = 'example.com'");
    assert.match(rows[0].dkim_private_key, /^v1:/);
    assert.ok(!rows[0].dkim_private_key.includes('PRIVATE KEY'));
  });

  test('options are honoured: region, return path, tracking subdomain, receiving, tls', async () => {
    const { data } = await t.resend.domains.create({
      name: 'opts.example.org',
      region: 'eu-west-1',
      customReturnPath: 'bounces',
      trackingSubdomain: 'links',
      openTracking: true,
      tls: 'enforced',
      capabilities: { sending: 'enabled', receiving: 'enabled' },
    } as never);
    assert.equal(data!.region, 'eu-west-1');
    const recs = data!.records as unknown as WireRecord[];
    assert.ok(recs.some((r) => r.record === 'SPF' && r.name === 'bounces'));
    assert.deepEqual(
      recs.find((r) => r.record === 'Receiving'),
      {
        record: 'Receiving',
        name: 'opts.example.org',
        value: 'mx.mailroom.test',
        type: 'MX',
        ttl: 'Auto',
        status: 'not_started',
        priority: 10,
      },
    );
    assert.deepEqual(
      recs.find((r) => r.record === 'Tracking'),
      {
        record: 'Tracking',
        name: 'links',
        value: 'mail.mailroom.test',
        type: 'CNAME',
        ttl: 'Auto',
        status: 'not_started',
      },
    );
    const got = await t.resend.domains.get(data!.id);
    assert.equal(got.data!.object, 'domain');
    assert.equal((got.data as unknown as { tls: string }).tls, 'enforced');
    assert.equal(got.data!.open_tracking, true);
  });

  test('invalid names are 422: no dot, IP literal, too long, bad characters', async () => {
    for (const name of [
      'localhost',
      '192.168.1.1',
      '[::1]',
      `${'a'.repeat(64)}.com`,
      `${'abc.'.repeat(64)}com`,
      'exa mple.com',
      'ex_ample.com',
      'bad\r\n.com',
      '-lead.com',
    ]) {
      const { error } = await t.resend.domains.create({ name });
      assert.equal(error?.statusCode, 422, name);
      assert.equal(error?.name, 'validation_error', name);
      assert.match(error!.message, /`name`/, name);
    }
  });

  test('an IDN is accepted and stored in its ASCII form', async () => {
    const { data } = await t.resend.domains.create({ name: 'bücher.example' });
    assert.equal(data!.name, 'xn--bcher-kva.example');
  });

  test('a duplicate domain is 403 "has been registered already", also from another team', async () => {
    const { error } = await t.resend.domains.create({ name: 'example.com' });
    assert.deepEqual(error, {
      statusCode: 403,
      message: 'The `example.com` domain has been registered already.',
      name: 'validation_error',
    });
  });

  test('an unknown region is 422 invalid_region; an unknown tls is 422 validation_error', async () => {
    assert.equal(
      (await t.resend.domains.create({ name: 'r.example.com', region: 'mars-1' as never })).error!.name,
      'invalid_region',
    );
    assert.equal(
      (await t.resend.domains.create({ name: 'r.example.com', tls: 'always' as never })).error!.name,
      'validation_error',
    );
    assert.equal(
      (await t.api('POST', '/domains', { body: { name: 'r.example.com', capabilities: { sending: 'disabled' } } })).body
        .name,
      'validation_error',
    );
  });

  test('verification marks every record verified when all are published', async () => {
    const { data } = await t.resend.domains.create({ name: 'good.example.net' });
    publishRecords(dns, 'good.example.net', data!.records as unknown as WireRecord[]);
    const v = await t.resend.domains.verify(data!.id);
    assert.deepEqual(v.data, { object: 'domain', id: data!.id });
    const got = (await t.resend.domains.get(data!.id)).data!;
    assert.equal(got.status, 'verified');
    for (const r of got.records) assert.equal(r.status, 'verified', r.record);
    assert.ok(await t.app.domains.sendingDomain(t.app.defaultTeamId, 'good.example.net'));
  });

  for (const missing of ['DKIM', 'SPF MX', 'SPF TXT', 'DMARC']) {
    test(`with the ${missing} record missing, that record is pending and the domain ${missing === 'DMARC' ? 'still verifies' : 'is pending'}`, async () => {
      const name = `m-${missing.replace(' ', '-').toLowerCase()}.example.net`;
      const { data } = await t.resend.domains.create({ name });
      const recs = data!.records as unknown as WireRecord[];
      const matches = (r: WireRecord) =>
        missing === 'SPF MX'
          ? r.record === 'SPF' && r.type === 'MX'
          : missing === 'SPF TXT'
            ? r.record === 'SPF' && r.type === 'TXT'
            : r.record === missing;
      publishRecords(dns, name, recs, matches);
      await t.resend.domains.verify(data!.id);
      const got = (await t.resend.domains.get(data!.id)).data!;
      for (const r of got.records as unknown as WireRecord[]) {
        assert.equal(r.status, matches(r) ? 'pending' : 'verified', `${r.record} ${r.type}`);
      }
      assert.equal(got.status, missing === 'DMARC' ? 'verified' : 'pending');
      assert.equal(Boolean(await t.app.domains.sendingDomain(t.app.defaultTeamId, name)), missing === 'DMARC');
    });
  }

  test('a DKIM record with another key does not verify', async () => {
    const { data } = await t.resend.domains.create({ name: 'wrongkey.example.net' });
    const recs = (data!.records as unknown as WireRecord[]).map((r) =>
      r.record === 'DKIM' ? { ...r, value: r.value.replace(/p=.{10}/, 'p=AAAAAAAAAA') } : r,
    );
    publishRecords(dns, 'wrongkey.example.net', recs);
    await t.resend.domains.verify(data!.id);
    const got = (await t.resend.domains.get(data!.id)).data!;
    assert.equal(got.records.find((r) => r.record === 'DKIM')!.status, 'pending');
  });

  test('receiving enabled but its MX missing is partially_verified', async () => {
    const { data } = await t.resend.domains.create({
      name: 'part.example.net',
      capabilities: { sending: 'enabled', receiving: 'enabled' },
    } as never);
    publishRecords(dns, 'part.example.net', data!.records as unknown as WireRecord[], (r) => r.record === 'Receiving');
    await t.resend.domains.verify(data!.id);
    assert.equal((await t.resend.domains.get(data!.id)).data!.status, 'partially_verified');
  });

  test('a verified domain whose record vanishes turns temporary_failure on the next check, and SERVFAIL is temporary too', async () => {
    const { data } = await t.resend.domains.create({ name: 'vanish.example.net' });
    const recs = data!.records as unknown as WireRecord[];
    publishRecords(dns, 'vanish.example.net', recs);
    await t.resend.domains.verify(data!.id);
    dns.remove('mailroom._domainkey.vanish.example.net');
    await t.resend.domains.verify(data!.id);
    let got = (await t.resend.domains.get(data!.id)).data!;
    assert.equal(got.status as string, 'temporary_failure');
    assert.equal(got.records.find((r) => r.record === 'DKIM')!.status, 'temporary_failure');
    // Still allowed to send during the grace window.
    assert.ok(await t.app.domains.sendingDomain(t.app.defaultTeamId, 'vanish.example.net'));
    publishRecords(dns, 'vanish.example.net', recs);
    dns.fail('send.vanish.example.net', 'SERVFAIL');
    await t.resend.domains.verify(data!.id);
    got = (await t.resend.domains.get(data!.id)).data!;
    assert.equal(got.records.find((r) => r.record === 'DKIM')!.status, 'verified');
    assert.equal(got.records.find((r) => r.record === 'SPF')!.status, 'temporary_failure');
    dns.fail('send.vanish.example.net', null);
    await t.resend.domains.verify(data!.id);
    assert.equal((await t.resend.domains.get(data!.id)).data!.status, 'verified');
  });

  test('the background re-check picks up due domains and verifies them', async () => {
    const { data } = await t.resend.domains.create({ name: 'later.example.net' });
    await t.resend.domains.verify(data!.id); // nothing published yet: pending
    assert.equal((await t.resend.domains.get(data!.id)).data!.status, 'pending');
    publishRecords(dns, 'later.example.net', data!.records as unknown as WireRecord[]);
    await t.db.pool.query("UPDATE domains SET next_check_at = now() - interval '1 second' WHERE id = $1", [data!.id]);
    assert.ok((await t.app.domains.recheckDue()) >= 1);
    assert.equal((await t.resend.domains.get(data!.id)).data!.status, 'verified');
  });

  test('update changes tracking and tls; list and delete follow', async () => {
    const { data } = await t.resend.domains.create({ name: 'upd.example.net' });
    const u = await t.resend.domains.update({ id: data!.id, clickTracking: true, tls: 'enforced' });
    assert.deepEqual(u.data, { object: 'domain', id: data!.id });
    const got = (await t.resend.domains.get(data!.id)).data!;
    assert.equal(got.click_tracking, true);
    const list = (await t.resend.domains.list()).data!;
    assert.equal(list.object, 'list');
    const item = list.data.find((d) => d.id === data!.id)!;
    assert.deepEqual(Object.keys(item).sort(), [
      'capabilities',
      'click_tracking',
      'created_at',
      'id',
      'name',
      'open_tracking',
      'region',
      'status',
    ]);
    const del = await t.resend.domains.remove(data!.id);
    assert.deepEqual(del.data, { object: 'domain', id: data!.id, deleted: true });
    assert.equal((await t.resend.domains.get(data!.id)).error!.name, 'not_found');
  });

  test('list paginates with limit and after, newest first', async () => {
    const page1 = (await t.resend.domains.list({ limit: 2 })).data!;
    assert.equal(page1.data.length, 2);
    assert.equal(page1.has_more, true);
    const page2 = (await t.resend.domains.list({ limit: 2, after: page1.data[1].id })).data!;
    assert.ok(!page2.data.some((d) => page1.data.some((p) => p.id === d.id)));
    assert.ok(page1.data[1].created_at >= page2.data[0].created_at);
    const back = (await t.resend.domains.list({ limit: 2, before: page2.data[0].id })).data!;
    assert.deepEqual(
      back.data.map((d) => d.id),
      page1.data.map((d) => d.id),
    );
  });
});

describe('domains in capture mode', () => {
  test('verify succeeds without DNS', async () => {
    const t = await startTestApp({ deliveryMode: 'capture', dnsServers: ['127.0.0.1:9'] });
    try {
      const { data } = await t.resend.domains.create({ name: 'capture.example.com' });
      await t.resend.domains.verify(data!.id);
      assert.equal((await t.resend.domains.get(data!.id)).data!.status, 'verified');
    } finally {
      await t.close();
    }
  });
});
