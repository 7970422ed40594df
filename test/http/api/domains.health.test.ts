// GET /domains/:id/health through HTTP with an API key, every record served by the fake DNS
// server: a healthy domain passes, and each broken record turns its own check to warn or fail.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { startFakeDns, type FakeDns } from '../../helpers/fake-dns.js';
import { publishRecords, type WireRecord } from '../../helpers/publish-records.js';
import { createResolver } from '../../../src/domains/dns-check.js';
import { HealthDns } from '../../../src/domains/health-dns.js';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { dkimCheck, dmarcChecks, fetchMtaStsPolicy, mtaStsCheck } from '../../../src/domains/health-policies.js';
import { selfSignedCertificate } from '../../../src/lib/tls-cert.js';
import { analyzeSpf } from '../../../src/domains/spf.js';
import { teamCreate } from '../../../src/store/teams.js';
import { closeAll } from '../../helpers/close-all.js';

type Check = { id: string; status: string; detail: string; fix: string | null };

describe('domain health, checked live against the fake DNS server', () => {
  let t: TestApp;
  let dns: FakeDns;
  let id: string;
  let records: WireRecord[];
  const health = async (): Promise<{ status: string; checks: Check[] }> => {
    const res = await t.api('GET', `/domains/${id}/health`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const checkOf = async (cid: string) => (await health()).checks.find((c) => c.id === cid)!;

  before(async () => {
    dns = await startFakeDns();
    t = await startTestApp({
      dnsServers: [dns.address],
      heloName: 'out.mailroom.test',
      outboundAddresses: ['192.0.2.10'],
      dnsblZones: ['bl.test'],
      domainDnsblZones: ['dbl.test'],
    });
    const res = await t.api('POST', '/domains', { body: { name: 'good.example' } });
    id = res.body.id;
    records = res.body.records;
    const recv = await t.api('POST', '/domains', {
      body: { name: 'reports.good.example', capabilities: { sending: 'disabled', receiving: 'enabled' } },
    });
    assert.equal(recv.status, 201);
  });
  after(() =>
    closeAll(
      () => t.close(),
      () => dns.close(),
    ),
  );

  /** Everything a careful domain owner publishes. */
  function publishHealthy() {
    publishRecords(dns, 'good.example', records);
    dns.set('good.example', 'TXT', ['v=spf1 include:_spf.provider.test -all']);
    dns.set('_spf.provider.test', 'TXT', ['v=spf1 ip4:198.51.100.0/24 a mx -all']);
    dns.set('_dmarc.good.example', 'TXT', ['v=DMARC1; p=reject; rua=mailto:dmarc@reports.good.example']);
    dns.set('_mta-sts.good.example', 'TXT', ['v=STSv1; id=20261125']);
    dns.set('_smtp._tls.good.example', 'TXT', ['v=TLSRPTv1; rua=mailto:tls@good.example']);
    dns.set('10.2.0.192.in-addr.arpa', 'PTR', ['out.mailroom.test']);
    dns.set('out.mailroom.test', 'A', ['192.0.2.10']);
  }

  test('a well-published domain passes every check but MTA-STS, whose policy host does not answer', async () => {
    publishHealthy();
    const h = await health();
    const by = Object.fromEntries(h.checks.map((c) => [c.id, c]));
    assert.deepEqual(Object.keys(by).sort(), [
      'blocklist_domain',
      'blocklist_ips',
      'dkim',
      'dmarc_policy',
      'dmarc_rua',
      'mta_sts',
      'reverse_dns',
      'spf',
      'spf_return_path',
      'tls_rpt',
    ]);
    for (const c of h.checks) {
      assert.ok(
        ['pass', 'warn', 'fail'].includes(c.status) && typeof c.detail === 'string' && 'fix' in c,
        JSON.stringify(c),
      );
      if (c.id !== 'mta_sts') assert.equal(c.status, 'pass', JSON.stringify(c));
    }
    assert.equal(by.mta_sts.status, 'warn');
    assert.match(by.mta_sts.detail, /could not be read/);
    assert.equal(h.status, 'warn');
    assert.match(by.dkim.detail, /2048 bits/);
    assert.match(by.spf.detail, /3 of 10 DNS lookups/);
    assert.match(by.dmarc_rua.detail, /Mailroom receives and stores the reports sent to reports\.good\.example/);
    assert.match(by.reverse_dns.detail, /forward-confirmed/);
    // the Resend shape of the domain is untouched
    const { data } = await t.resend.domains.get(id);
    assert.equal(data!.name, 'good.example');
    assert.equal((data as unknown as Record<string, unknown>).checks, undefined);
  });

  test('SPF over the 10-lookup limit (counted through nested includes and redirect) fails with a fix', async () => {
    publishHealthy();
    dns.set('good.example', 'TXT', ['v=spf1 include:a.spf.test include:b.spf.test mx -all']);
    dns.set('a.spf.test', 'TXT', ['v=spf1 include:c.spf.test a mx exists:%{i}.x.spf.test ~all']);
    dns.set('b.spf.test', 'TXT', ['v=spf1 redirect=d.spf.test']);
    dns.set('c.spf.test', 'TXT', ['v=spf1 a mx ptr ~all']);
    dns.set('d.spf.test', 'TXT', ['v=spf1 a mx a:x.test -all']);
    const c = await checkOf('spf');
    assert.equal(c.status, 'fail');
    assert.match(c.detail, /14 DNS lookups .* the limit is 10/);
    assert.match(c.fix!, /ip4/);
  });

  test('SPF syntax errors, +all, a missing include target and two records each fail', async () => {
    publishHealthy();
    for (const [txt, want] of [
      [['v=spf1 ip4:300.1.1.1 -all'], /not a valid ip4/],
      [['v=spf1 include:nowhere.test -all'], /publishes no SPF record/],
      [['v=spf1 foo:bar -all'], /unknown term "foo:bar"/],
      [['v=spf1 a +all'], /\+all/],
      [['v=spf1 -all', 'v=spf1 a -all'], /2 SPF records/],
    ] as [string[], RegExp][]) {
      dns.set('good.example', 'TXT', txt);
      const c = await checkOf('spf');
      assert.equal(c.status, 'fail', `${txt}: ${c.detail}`);
      assert.match(c.detail, want);
    }
    dns.set('good.example', 'TXT', ['v=spf1 ptr ~all']);
    assert.equal((await checkOf('spf')).status, 'warn');
  });

  test('the return path SPF must authorize Mailroom; without it the check fails', async () => {
    publishHealthy();
    dns.set('send.good.example', 'TXT', ['v=spf1 ip4:203.0.113.5 -all']);
    const c = await checkOf('spf_return_path');
    assert.equal(c.status, 'fail');
    assert.match(c.detail, /does not include a:mx\.mailroom\.test/);
    dns.remove('send.good.example', 'TXT');
    assert.match((await checkOf('spf_return_path')).detail, /No SPF record at send\.good\.example/);
  });

  test('DMARC: missing fails, p=none and pct<100 warn, quarantine passes; rua elsewhere needs an authorization record', async () => {
    publishHealthy();
    dns.remove('_dmarc.good.example');
    let h = await health();
    assert.equal(h.checks.find((c) => c.id === 'dmarc_policy')!.status, 'fail');
    assert.equal(h.status, 'fail');
    dns.set('_dmarc.good.example', 'TXT', ['v=DMARC1; p=none']);
    h = await health();
    assert.equal(h.checks.find((c) => c.id === 'dmarc_policy')!.status, 'warn');
    assert.equal(h.checks.find((c) => c.id === 'dmarc_rua')!.status, 'warn');
    assert.match(h.checks.find((c) => c.id === 'dmarc_rua')!.fix!, /rua=mailto:dmarc@reports\.good\.example/);
    dns.set('_dmarc.good.example', 'TXT', ['v=DMARC1; p=reject; pct=20']);
    assert.match((await checkOf('dmarc_policy')).detail, /only 20%/);
    dns.set('_dmarc.good.example', 'TXT', ['v=DMARC1; p=quarantine; rua=mailto:d@elsewhere.test']);
    h = await health();
    assert.equal(h.checks.find((c) => c.id === 'dmarc_policy')!.status, 'pass');
    const rua = h.checks.find((c) => c.id === 'dmarc_rua')!;
    assert.equal(rua.status, 'warn');
    assert.match(rua.fix!, /good\.example\._report\._dmarc\.elsewhere\.test/);
    dns.set('good.example._report._dmarc.elsewhere.test', 'TXT', ['v=DMARC1']);
    const ok = await checkOf('dmarc_rua');
    assert.equal(ok.status, 'pass');
    assert.match(ok.detail, /does not see the reports/);
  });

  test('DKIM: a missing record or a key that is not ours fails', async () => {
    publishHealthy();
    dns.remove('mailroom._domainkey.good.example');
    assert.equal((await checkOf('dkim')).status, 'fail');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .publicKey.export({ type: 'spki', format: 'der' })
      .toString('base64');
    dns.set('mailroom._domainkey.good.example', 'TXT', [`v=DKIM1; k=rsa; p=${other}`]);
    const c = await checkOf('dkim');
    assert.equal(c.status, 'fail');
    assert.match(c.detail, /not the one Mailroom signs with/);
  });

  test('reverse DNS fails when the PTR is missing, names another host, or is not forward-confirmed', async () => {
    publishHealthy();
    dns.remove('10.2.0.192.in-addr.arpa');
    assert.match((await checkOf('reverse_dns')).detail, /192\.0\.2\.10 has no PTR record/);
    dns.set('10.2.0.192.in-addr.arpa', 'PTR', ['static-10.hosting.test']);
    const c = await checkOf('reverse_dns');
    assert.equal(c.status, 'fail');
    assert.match(c.detail, /points at static-10\.hosting\.test, not the HELO name out\.mailroom\.test/);
    dns.set('10.2.0.192.in-addr.arpa', 'PTR', ['out.mailroom.test']);
    dns.set('out.mailroom.test', 'A', ['192.0.2.99']);
    assert.match((await checkOf('reverse_dns')).detail, /does not resolve back to 192\.0\.2\.10/);
  });

  test("blocklist listings of the outbound address and of the domain fail, with the list's reason; a refused query warns", async () => {
    publishHealthy();
    dns.set('10.2.0.192.bl.test', 'A', ['127.0.0.2']);
    dns.set('10.2.0.192.bl.test', 'TXT', ['Listed for spam, see https://bl.test/192.0.2.10']);
    dns.set('good.example.dbl.test', 'A', ['127.0.1.2']);
    const h = await health();
    const ips = h.checks.find((c) => c.id === 'blocklist_ips')!;
    assert.equal(ips.status, 'fail');
    assert.match(ips.detail, /192\.0\.2\.10 on bl\.test \(127\.0\.0\.2: Listed for spam/);
    assert.equal(h.checks.find((c) => c.id === 'blocklist_domain')!.status, 'fail');
    assert.ok(
      dns.queries.some((q) => q.name === '10.2.0.192.bl.test' && q.type === 'A'),
      'asked the configured resolver',
    );
    dns.set('10.2.0.192.bl.test', 'A', ['127.255.255.254']);
    dns.remove('10.2.0.192.bl.test', 'TXT');
    dns.remove('good.example.dbl.test');
    const again = await health();
    assert.equal(again.checks.find((c) => c.id === 'blocklist_ips')!.status, 'warn');
    assert.equal(again.checks.find((c) => c.id === 'blocklist_domain')!.status, 'pass');
  });

  test('a DNS failure (SERVFAIL) is reported as "could not check", not as a missing record', async () => {
    publishHealthy();
    dns.fail('_dmarc.good.example', 'SERVFAIL');
    try {
      const c = await checkOf('dmarc_policy');
      assert.equal(c.status, 'warn');
      assert.match(c.detail, /Could not check/);
    } finally {
      dns.fail('_dmarc.good.example', null);
    }
  });

  test('TLS-RPT and MTA-STS missing warn', async () => {
    publishHealthy();
    dns.remove('_smtp._tls.good.example');
    dns.remove('_mta-sts.good.example');
    const h = await health();
    assert.equal(h.checks.find((c) => c.id === 'tls_rpt')!.status, 'warn');
    assert.match(h.checks.find((c) => c.id === 'mta_sts')!.detail, /No MTA-STS record/);
  });

  test('unknown domain is 404, no key is 401, another team cannot read it', async () => {
    assert.equal((await t.api('GET', '/domains/00000000-0000-4000-8000-000000000000/health')).status, 404);
    assert.equal((await t.api('GET', '/domains/nope/health')).status, 404);
    assert.equal((await t.api('GET', `/domains/${id}/health`, { key: null })).status, 401);
    const other = await teamCreate(t.db.pool, 'other team');
    const key = (await t.app.apiKeys.create(other.id, { name: 'other' })).token;
    assert.equal((await t.api('GET', `/domains/${id}/health`, { key })).status, 404);
    assert.equal((await t.api('GET', `/domains/${id}/dmarc-reports`, { key })).status, 404);
  });

  test('the checks are in the OpenAPI document', async () => {
    const doc = (await t.api('GET', '/openapi.json', { key: null })).body;
    assert.ok(doc.paths['/domains/{id}/health']?.get);
    assert.ok(doc.paths['/domains/{id}/dmarc-reports']?.get);
  });

  describe('checks used directly, on records served by the fake DNS', () => {
    const hdns = () => new HealthDns(createResolver([dns.address]));
    test('DKIM key size: 1024 bits warn, 2048 pass', async () => {
      for (const [bits, want] of [
        [1024, 'warn'],
        [2048, 'pass'],
      ] as const) {
        const p = generateKeyPairSync('rsa', { modulusLength: bits })
          .publicKey.export({ type: 'spki', format: 'der' })
          .toString('base64');
        dns.set(`s${bits}._domainkey.size.test`, 'TXT', [`v=DKIM1; k=rsa; p=${p}`]);
        const c = await dkimCheck('dkim', `s${bits}._domainkey.size.test`, p, hdns());
        assert.equal(c.status, want, c.detail);
        assert.match(c.detail, new RegExp(`${bits} bits`));
      }
    });
    test('MTA-STS: an enforced policy passes, testing mode warns, a broken policy fails', async () => {
      dns.set('_mta-sts.sts.test', 'TXT', ['v=STSv1; id=1']);
      const policy = (mode: string) => async () => `version: STSv1\nmode: ${mode}\nmx: mx.sts.test\nmax_age: 604800\n`;
      assert.equal((await mtaStsCheck('sts.test', hdns(), policy('enforce'))).status, 'pass');
      assert.equal((await mtaStsCheck('sts.test', hdns(), policy('testing'))).status, 'warn');
      assert.equal((await mtaStsCheck('sts.test', hdns(), async () => 'mode: enforce\n')).status, 'fail');
    });
    test('MTA-STS policy fetched over real HTTPS: certificate verified, private addresses refused unless allowed', async () => {
      const pair = selfSignedCertificate(['mta-sts.sts2.test']);
      const policyText = 'version: STSv1\nmode: enforce\nmx: mx.sts2.test\nmax_age: 86400\n';
      const paths: string[] = [];
      const srv = https.createServer({ key: pair.key, cert: pair.cert }, (req, res) => {
        paths.push(`${req.headers.host} ${req.url}`);
        res.end(policyText);
      });
      await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
      const port = (srv.address() as AddressInfo).port;
      try {
        dns.set('_mta-sts.sts2.test', 'TXT', ['v=STSv1; id=2']);
        dns.set('mta-sts.sts2.test', 'A', ['127.0.0.1']);
        const allowed = (d: string, r: HealthDns) =>
          fetchMtaStsPolicy(d, r, { allowPrivate: true, port, ca: pair.cert });
        const ok = await mtaStsCheck('sts2.test', hdns(), allowed);
        assert.equal(ok.status, 'pass', ok.detail);
        assert.match(ok.detail, /enforced for mx\.sts2\.test/);
        assert.deepEqual(paths, [`mta-sts.sts2.test:${port} /.well-known/mta-sts.txt`]);
        const refused = await mtaStsCheck('sts2.test', hdns(), (d, r) =>
          fetchMtaStsPolicy(d, r, { allowPrivate: false, port, ca: pair.cert }),
        );
        assert.equal(refused.status, 'warn');
        assert.match(refused.detail, /loopback address \(127\.0\.0\.1\), which is not allowed/);
        const untrusted = await mtaStsCheck('sts2.test', hdns(), (d, r) =>
          fetchMtaStsPolicy(d, r, { allowPrivate: true, port }),
        );
        assert.equal(untrusted.status, 'warn');
        assert.match(untrusted.detail, /could not be read: .*certificate/i);
        assert.equal(paths.length, 1, 'neither refused request reached the server');
      } finally {
        await new Promise<void>((r) => srv.close(() => r()));
      }
    });
    test("DMARC of a subdomain without its own record: the parent's record applies, with its sp= policy", async () => {
      dns.set('_dmarc.parent.test', 'TXT', ['v=DMARC1; p=reject; sp=none; rua=mailto:d@parent.test']);
      const [policy, rua] = await dmarcChecks('news.mail.parent.test', hdns(), []);
      assert.equal(policy.status, 'warn');
      assert.match(policy.detail, /^Inherited from _dmarc\.parent\.test: sp=none/);
      assert.match(policy.fix!, /sp=quarantine.*_dmarc\.parent\.test/);
      assert.equal(rua.status, 'pass', rua.detail);
      dns.set('_dmarc.parent.test', 'TXT', ['v=DMARC1; p=reject']);
      assert.equal((await dmarcChecks('news.parent.test', hdns(), []))[0].status, 'pass');
    });
    test('SPF include loops are errors, not endless', async () => {
      dns.set('loop1.test', 'TXT', ['v=spf1 include:loop2.test -all']);
      dns.set('loop2.test', 'TXT', ['v=spf1 include:loop1.test -all']);
      const a = await analyzeSpf('loop1.test', (n) => hdns().txt(n));
      assert.ok(
        a.errors.some((e) => /loops back/.test(e)),
        a.errors.join('; '),
      );
    });
  });
});

describe('domain health in capture mode', () => {
  test('reads no DNS and says why: nothing leaves the machine, so no check fails and no record is to be changed', async () => {
    const dns = await startFakeDns();
    // An unqualified MX host, as on a developer's machine: the advice would have been "v=spf1 a:vm ~all".
    const t = await startTestApp({ deliveryMode: 'capture', dnsServers: [dns.address], mxHost: 'vm' });
    try {
      const { data } = await t.resend.domains.create({ name: 'capture.example' });
      await t.resend.domains.verify(data!.id);
      const dom = (await t.resend.domains.get(data!.id)).data!;
      assert.equal(dom.status, 'verified', 'the domain can send, as the README walkthrough shows');
      assert.ok(
        dom.records.every((r) => r.status === 'verified'),
        'records keep a status Resend knows',
      );
      const h = await t.api('GET', `/domains/${data!.id}/health`);
      assert.equal(h.status, 200);
      assert.deepEqual(
        [h.body.object, h.body.name, h.body.status, h.body.checks],
        ['domain_health', 'capture.example', 'not_checked', []],
      );
      assert.match(h.body.notice, /capture mode.*nothing leaves this machine.*not checked/i);
      assert.doesNotMatch(JSON.stringify(h.body), /v=spf1|"fail"/);
      assert.deepEqual(dns.queries, [], 'no DNS query was made');
    } finally {
      await t.close();
      await dns.close();
    }
  });

  test('outside capture mode the report carries no notice', async () => {
    const dns = await startFakeDns();
    const t = await startTestApp({ dnsServers: [dns.address] });
    try {
      const { data } = await t.resend.domains.create({ name: 'real.example' });
      const h = await t.api('GET', `/domains/${data!.id}/health`);
      assert.equal(h.body.notice, null);
      assert.notEqual(h.body.status, 'not_checked');
      assert.ok(h.body.checks.length > 0);
    } finally {
      await t.close();
      await dns.close();
    }
  });
});
