import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { loadTlsKeyPair, selfSignedCertificate } from '../../src/lib/tls-cert.js';

test('a self-signed certificate names the host, is for servers only, matches its key and works for TLS 1.2+', async () => {
  const pair = selfSignedCertificate(['mx.example.test', 'localhost', '127.0.0.1']);
  const x = new X509Certificate(pair.cert);
  assert.equal(x.subject, 'CN=mx.example.test');
  assert.equal(x.subjectAltName, 'DNS:mx.example.test, DNS:localhost, IP Address:127.0.0.1');
  assert.equal(x.ca, false);
  assert.ok(x.verify(x.publicKey), 'self-signed');
  assert.ok(x.checkPrivateKey(createPrivateKey(pair.key)));
  assert.ok(Date.parse(x.validTo) - Date.now() > 800 * 86_400_000);

  const server = tls.createServer({ key: pair.key, cert: pair.cert, minVersion: 'TLSv1.2' }, (s) => s.end());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const port = (server.address() as { port: number }).port;
    const protocol = await new Promise<string | null>((resolve, reject) => {
      const c = tls.connect({ port, host: '127.0.0.1', ca: pair.cert, servername: 'mx.example.test' }, () => {
        resolve(c.getProtocol());
        c.end();
      });
      c.on('error', reject);
    });
    assert.match(protocol!, /^TLSv1\.[23]$/);
    await assert.rejects(
      new Promise((resolve, reject) => {
        const c = tls.connect(
          {
            port,
            host: '127.0.0.1',
            ca: pair.cert,
            servername: 'mx.example.test',
            maxVersion: 'TLSv1.1',
            minVersion: 'TLSv1',
          },
          () => resolve(c),
        );
        c.on('error', reject);
      }),
    );
  } finally {
    server.close();
  }
});

test('every generated certificate is valid DER (serial numbers are minimal, positive integers)', () => {
  for (let i = 0; i < 100; i++) {
    const { cert, key } = selfSignedCertificate(['mx.example.test']);
    const x = new X509Certificate(cert);
    assert.match(x.serialNumber, /^[4-7][0-9A-F]{31}$/);
    tls.createSecureContext({ cert, key });
  }
});

test('the generated pair is created once per data directory, kept, and replaced when unusable; configured files win', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-tls-'));
  try {
    const first = loadTlsKeyPair({ dataDir: dir, hostname: 'mx.example.test' });
    assert.equal(first.generated, true);
    assert.equal(fs.statSync(path.join(dir, 'smtp-tls.key')).mode & 0o777, 0o600);
    const again = loadTlsKeyPair({ dataDir: dir, hostname: 'mx.example.test' });
    assert.deepEqual([again.generated, again.cert, again.key], [false, first.cert, first.key]);
    fs.writeFileSync(path.join(dir, 'smtp-tls.crt'), 'garbage');
    const replaced = loadTlsKeyPair({ dataDir: dir, hostname: 'mx.example.test' });
    assert.equal(replaced.generated, true);
    assert.notEqual(replaced.key, first.key);

    const own = selfSignedCertificate(['own.example.test']);
    fs.writeFileSync(path.join(dir, 'own.crt'), own.cert);
    fs.writeFileSync(path.join(dir, 'own.key'), own.key);
    const configured = loadTlsKeyPair({
      dataDir: dir,
      hostname: 'x',
      certFile: path.join(dir, 'own.crt'),
      keyFile: path.join(dir, 'own.key'),
    });
    assert.deepEqual([configured.generated, configured.cert], [false, own.cert]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('configured files that cannot be read, or do not belong together, are refused naming the setting and the file', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-tls-'));
  try {
    const a = selfSignedCertificate(['a.example.test']);
    const b = selfSignedCertificate(['b.example.test']);
    fs.writeFileSync(path.join(dir, 'a.crt'), a.cert);
    fs.writeFileSync(path.join(dir, 'a.key'), a.key);
    fs.writeFileSync(path.join(dir, 'b.key'), b.key);
    fs.writeFileSync(path.join(dir, 'junk.crt'), 'not a certificate');
    const load = (cert: string, key: string) => () =>
      loadTlsKeyPair({ dataDir: dir, hostname: 'x', certFile: path.join(dir, cert), keyFile: path.join(dir, key) });
    assert.throws(load('missing.crt', 'a.key'), /^Error: MAILROOM_TLS_CERT \(.*missing\.crt\) cannot be read: ENOENT/);
    assert.throws(load('a.crt', 'missing.key'), /^Error: MAILROOM_TLS_KEY \(.*missing\.key\) cannot be read: ENOENT/);
    assert.throws(
      load('a.crt', 'b.key'),
      /MAILROOM_TLS_CERT .* and MAILROOM_TLS_KEY .* are not a PEM certificate and its private key/,
    );
    assert.throws(load('junk.crt', 'a.key'), /are not a PEM certificate and its private key/);
    assert.equal(load('a.crt', 'a.key')().cert, a.cert);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
