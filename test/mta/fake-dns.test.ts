// Checks the fake DNS test helper against node:dns (c-ares) and raw UDP queries.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import net from 'node:net';
import { Resolver } from 'node:dns/promises';
import dnsPacket from 'dns-packet';
import { startFakeDns, type FakeDns } from '../helpers/fake-dns.js';

let dns: FakeDns;
let resolver: Resolver;

before(async () => {
  dns = await startFakeDns();
  resolver = new Resolver({ timeout: 1000, tries: 1 });
  resolver.setServers([dns.address]);
});
after(() => dns.close());

test('answers MX records with their priorities', async () => {
  dns.set('Example.COM.', 'MX', [
    { exchange: 'mx1.example.com', priority: 10 },
    { exchange: 'mx2.example.com', priority: 20 },
  ]);
  const mx = await resolver.resolveMx('example.com');
  assert.deepEqual(
    mx.sort((a, b) => a.priority - b.priority),
    [
      { exchange: 'mx1.example.com', priority: 10 },
      { exchange: 'mx2.example.com', priority: 20 },
    ],
  );
  assert.deepEqual(dns.queries.at(-1), { name: 'example.com', type: 'MX' });
});

test('answers a null MX as an empty exchange', async () => {
  dns.set('nullmx.test', 'MX', [{ exchange: '', priority: 0 }]);
  assert.deepEqual(await resolver.resolveMx('nullmx.test'), [{ exchange: '', priority: 0 }]);
});

test('splits a 600-character TXT value into 255-byte strings', async () => {
  const long = 'v=DKIM1; k=rsa; p=' + 'A'.repeat(582);
  dns.set('sel._domainkey.example.com', 'TXT', [long, ['a', 'b']]);
  const txt = await resolver.resolveTxt('sel._domainkey.example.com');
  const joined = txt.map((chunks) => chunks.join(''));
  assert.ok(joined.includes(long));
  assert.ok(joined.includes('ab'));
  const longChunks = txt.find((c) => c.join('') === long)!;
  assert.deepEqual(
    longChunks.map((c) => c.length),
    [255, 255, 90],
  );
});

test('answers A records and follows CNAMEs', async () => {
  dns.set('host.example.com', 'A', ['127.0.0.1', '127.0.0.3']);
  dns.set('alias.example.com', 'CNAME', ['host.example.com']);
  assert.deepEqual((await resolver.resolve4('host.example.com')).sort(), ['127.0.0.1', '127.0.0.3']);
  assert.deepEqual(await resolver.resolveCname('alias.example.com'), ['host.example.com']);
  assert.deepEqual((await resolver.resolve4('alias.example.com')).sort(), ['127.0.0.1', '127.0.0.3']);
});

test('answers NXDOMAIN for unknown names and NODATA for other types', async () => {
  await assert.rejects(resolver.resolve4('nowhere.test'), { code: 'ENOTFOUND' });
  await assert.rejects(resolver.resolveMx('host.example.com'), { code: 'ENODATA' });
  dns.remove('host.example.com', 'A');
  await assert.rejects(resolver.resolve4('host.example.com'), { code: 'ENOTFOUND' });
});

test('answers SERVFAIL and REFUSED on demand, and clears them', async () => {
  dns.set('broken.test', 'A', ['127.0.0.1']);
  dns.fail('broken.test', 'SERVFAIL');
  await assert.rejects(resolver.resolve4('broken.test'), { code: 'ESERVFAIL' });
  dns.fail('broken.test', 'REFUSED');
  await assert.rejects(resolver.resolve4('broken.test'), { code: 'EREFUSED' });
  dns.fail('broken.test', null);
  assert.deepEqual(await resolver.resolve4('broken.test'), ['127.0.0.1']);
});

test('sets TC on UDP answers over 512 bytes without EDNS', async () => {
  dns.set('big.test', 'TXT', ['x'.repeat(700)]);
  const sock = dgram.createSocket('udp4');
  try {
    const reply = await new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no reply')), 2000);
      sock.once('message', (m) => {
        clearTimeout(timer);
        resolve(m);
      });
      sock.send(
        dnsPacket.encode({ id: 7, type: 'query', questions: [{ type: 'TXT', name: 'big.test' }] }),
        dns.port,
        '127.0.0.1',
      );
    });
    const packet = dnsPacket.decode(reply);
    assert.ok((packet.flags ?? 0) & dnsPacket.TRUNCATED_RESPONSE);
    assert.equal(packet.answers?.length, 0);
  } finally {
    sock.close();
  }
  // c-ares retries over TCP and gets the whole value.
  assert.equal((await resolver.resolveTxt('big.test'))[0].join(''), 'x'.repeat(700));
});

test('answers over TCP with a 2-byte length prefix, several queries per connection', async () => {
  dns.set('huge.test', 'TXT', ['y'.repeat(2000)]);
  const socket = net.connect(dns.port, '127.0.0.1');
  try {
    const query = dnsPacket.streamEncode({ id: 9, type: 'query', questions: [{ type: 'TXT', name: 'huge.test' }] });
    socket.write(Buffer.concat([query, query]));
    const replies = await new Promise<dnsPacket.Packet[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no reply')), 2000);
      let buf = Buffer.alloc(0);
      const out: dnsPacket.Packet[] = [];
      socket.on('data', (chunk) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          out.push(dnsPacket.streamDecode(buf.subarray(0, 2 + buf.readUInt16BE(0))));
          buf = buf.subarray(2 + buf.readUInt16BE(0));
        }
        if (out.length === 2) {
          clearTimeout(timer);
          resolve(out);
        }
      });
    });
    for (const reply of replies) {
      const data = (reply.answers?.[0] as { data: Buffer[] }).data;
      assert.equal(Buffer.concat(data).toString(), 'y'.repeat(2000));
    }
  } finally {
    socket.destroy();
  }
});
