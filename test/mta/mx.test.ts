// MX resolution against the fake DNS server: order, implicit MX, null MX, missing and failing DNS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';
import { clearDestinationCache, resolveDestination } from '../../src/mta/mx.js';

let dns: FakeDns;
const opts = () => ({ servers: [dns.address], timeoutMs: 3000 });

before(async () => {
  dns = await startFakeDns();
});
after(() => dns.close());

test('returns MX hosts in preference order with their addresses', async () => {
  dns.set('order.test', 'MX', [
    { exchange: 'b.order.test', priority: 20 },
    { exchange: 'a.order.test', priority: 10 },
    { exchange: 'gone.order.test', priority: 5 },
  ]);
  dns.set('a.order.test', 'A', ['127.0.0.1']);
  dns.set('a.order.test', 'AAAA', ['::1']);
  dns.set('b.order.test', 'A', ['127.0.0.2']);
  const dest = await resolveDestination('Order.Test.', opts());
  assert.deepEqual(dest, {
    kind: 'hosts',
    hosts: [
      { host: 'a.order.test', priority: 10, addresses: ['127.0.0.1', '::1'] },
      { host: 'b.order.test', priority: 20, addresses: ['127.0.0.2'] },
    ],
  });
});

test('shuffles hosts of equal preference', async () => {
  const names = ['m1', 'm2', 'm3', 'm4'].map((n) => `${n}.shuffle.test`);
  dns.set(
    'shuffle.test',
    'MX',
    names.map((exchange) => ({ exchange, priority: 10 })),
  );
  for (const n of names) dns.set(n, 'A', ['127.0.0.1']);
  const firsts = new Set<string>();
  for (let i = 0; i < 30 && firsts.size < 2; i++) {
    const dest = await resolveDestination('shuffle.test', { ...opts(), cacheTtlMs: 0 });
    assert.equal(dest.kind, 'hosts');
    if (dest.kind === 'hosts') firsts.add(dest.hosts[0].host);
  }
  assert.ok(firsts.size >= 2, 'the first host should vary');
});

test('falls back to the address of the domain itself when it has no MX', async () => {
  dns.set('implicit.test', 'A', ['127.0.0.1']);
  assert.deepEqual(await resolveDestination('implicit.test', opts()), {
    kind: 'hosts',
    hosts: [{ host: 'implicit.test', priority: 0, addresses: ['127.0.0.1'] }],
  });
});

test('recognises a null MX', async () => {
  dns.set('nullmx.test', 'MX', [{ exchange: '', priority: 0 }]);
  assert.deepEqual(await resolveDestination('nullmx.test', opts()), { kind: 'null_mx' });
});

test('reports a missing domain, and a domain with neither MX nor address, as nxdomain', async () => {
  assert.equal((await resolveDestination('missing.test', opts())).kind, 'nxdomain');
  dns.set('txtonly.test', 'TXT', ['v=spf1 -all']);
  assert.equal((await resolveDestination('txtonly.test', opts())).kind, 'nxdomain');
});

test('reports SERVFAIL as temporary and does not cache it', async () => {
  dns.set('flaky.test', 'MX', [{ exchange: 'mx.flaky.test', priority: 10 }]);
  dns.set('mx.flaky.test', 'A', ['127.0.0.1']);
  dns.fail('flaky.test', 'SERVFAIL');
  const dest = await resolveDestination('flaky.test', opts());
  assert.equal(dest.kind, 'temporary');
  dns.fail('flaky.test', null);
  assert.equal((await resolveDestination('flaky.test', opts())).kind, 'hosts');
});

test('reports a silent DNS server as temporary within the timeout', async () => {
  const started = Date.now();
  const dest = await resolveDestination('slow.test', { servers: ['127.0.0.1:9'], timeoutMs: 600 });
  assert.equal(dest.kind, 'temporary');
  assert.ok(Date.now() - started < 3000);
});

test('caches answers briefly per domain and server list', async () => {
  dns.set('cached.test', 'A', ['127.0.0.1']);
  await resolveDestination('cached.test', opts());
  const before = dns.queries.length;
  await resolveDestination('cached.test', opts());
  assert.equal(dns.queries.length, before);
  clearDestinationCache();
  await resolveDestination('cached.test', opts());
  assert.ok(dns.queries.length > before);
});

test('takes an IP literal as its own host without DNS', async () => {
  assert.deepEqual(await resolveDestination('[127.0.0.1]', opts()), {
    kind: 'hosts',
    hosts: [{ host: '127.0.0.1', priority: 0, addresses: ['127.0.0.1'] }],
  });
});
