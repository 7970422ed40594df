// The outbound connection pool: per-host limit, reuse, idle close, shutdown, connect failures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRecordingSmtp, type RecordingSmtp } from '../helpers/recording-smtp.js';
import { ConnectError, Pool, type Lease, type Target } from '../../src/mta/pool.js';

let smtp: RecordingSmtp;
const target = (): Target => ({
  address: '127.0.0.1',
  port: smtp.port,
  servername: 'mx.pool.test',
  tls: 'opportunistic',
  heloName: 'mta.pool.test',
});

function send(lease: Lease, to: string): Promise<void> {
  return new Promise((resolve, reject) =>
    lease.connection.send({ from: 'a@pool.test', to: [to] }, Buffer.from('Subject: x\r\n\r\nhi\r\n'), (err) =>
      err ? reject(err) : resolve(),
    ),
  );
}

before(async () => {
  smtp = await startRecordingSmtp();
});
after(() => smtp.close());

test('reuses an idle connection and reports STARTTLS', async () => {
  const pool = new Pool();
  try {
    const first = await pool.acquire(target());
    assert.equal(first.reused, false);
    assert.equal(first.secure, true);
    await send(first, 'one@pool.test');
    first.release();
    const second = await pool.acquire(target());
    assert.equal(second.reused, true);
    assert.equal(second.connection, first.connection);
    await send(second, 'two@pool.test');
    second.release();
    assert.equal(pool.size(), 1);
  } finally {
    await pool.closeAll();
  }
});

test('holds callers beyond maxPerHost until a connection is released', async () => {
  const pool = new Pool({ maxPerHost: 2 });
  try {
    const a = await pool.acquire(target());
    const b = await pool.acquire(target());
    let third: Lease | undefined;
    const waiting = pool.acquire(target()).then((l) => (third = l));
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(third, undefined);
    assert.equal(pool.size(), 2);
    a.release();
    await waiting;
    assert.equal(third!.connection, a.connection);
    b.release();
    third!.release();
  } finally {
    await pool.closeAll();
  }
});

test('closes idle connections after idleMs', async () => {
  const pool = new Pool({ idleMs: 100 });
  try {
    (await pool.acquire(target())).release();
    assert.equal(pool.size(), 1);
    for (let i = 0; i < 50 && pool.size() > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(pool.size(), 0);
  } finally {
    await pool.closeAll();
  }
});

test('fails with a ConnectError when nothing listens, and refuses work after closeAll', async () => {
  const pool = new Pool({ timeoutMs: 2000 });
  await assert.rejects(pool.acquire({ ...target(), address: '127.0.0.2' }), ConnectError);
  assert.equal(pool.size(), 0);
  await pool.closeAll();
  await assert.rejects(pool.acquire(target()), /shut down/);
});
