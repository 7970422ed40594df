// An expired cache entry is looked up once for all the requests waiting on it (issue 27: every
// request in flight looked the same key up again), and a key revoked while a lookup of it is in
// flight is refused at once in this process: the lookup's answer is neither cached nor joined by
// later requests.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { ApiKeys } from '../../src/auth/api-keys.js';
import { teamEnsureDefault } from '../../src/store/teams.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';

/** A pool that counts the key lookups and can hold their answers at a gate until released. */
class KeyLookupPool extends pg.Pool {
  lookups = 0;
  gate: Promise<void> | null = null;
  // biome-ignore lint/suspicious/noExplicitAny: pg.Pool.query's overloads
  override query(...args: any[]): any {
    const text = typeof args[0] === 'string' ? args[0] : '';
    if (!text.includes('FROM api_keys WHERE token_hash')) return (super.query as (...a: unknown[]) => unknown)(...args);
    this.lookups++;
    const gate = this.gate;
    const answer = (super.query as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    return gate ? answer.then(async (r) => (await gate, r)) : answer;
  }
}

let db: TestDatabase;
let pool: KeyLookupPool;
let teamId: string;
before(async () => {
  db = await freshDatabase();
  pool = new KeyLookupPool({ connectionString: db.url, max: 4 });
  teamId = (await teamEnsureDefault(pool)).id;
});
after(async () => {
  await pool?.end();
  await db?.drop();
});

test('64 requests with a key not in the cache look it up once', async () => {
  const keys = new ApiKeys(pool);
  const { token, id } = await keys.create(teamId, { name: 'k' });
  pool.lookups = 0;
  const got = await Promise.all(Array.from({ length: 64 }, () => keys.verifyToken(token)));
  assert.equal(pool.lookups, 1);
  assert.deepEqual(new Set(got.map((k) => `${k.id} ${k.team_id}`)), new Set([`${id} ${teamId}`]));
  await Promise.all(Array.from({ length: 64 }, () => keys.verifyToken(token)));
  assert.equal(pool.lookups, 1, 'then served from the cache');
  const bad = await Promise.allSettled(Array.from({ length: 8 }, () => keys.verifyToken(`${token}x`)));
  assert.ok(bad.every((r) => r.status === 'rejected' && (r.reason as { code?: string }).code === 'invalid_api_key'));
  assert.equal(pool.lookups, 2, 'an unknown token: one lookup for the eight');
});

test('a key revoked while its lookup is in flight is refused at once afterwards', async () => {
  const keys = new ApiKeys(pool);
  const { token, id } = await keys.create(teamId, { name: 'revoked mid-lookup' });
  let release!: () => void;
  pool.gate = new Promise((r) => {
    release = r;
  });
  const early = keys.verifyToken(token); // its lookup finds the key; the answer waits at the gate
  await new Promise((r) => setTimeout(r, 20));
  pool.gate = null;
  assert.equal(await keys.delete(teamId, id), true);
  await assert.rejects(
    keys.verifyToken(token), // a request after the revocation: a lookup of its own, not the one in flight
    (e: { code?: string }) => e.code === 'invalid_api_key',
  );
  release();
  assert.equal((await early).id, id, 'the request that came before the revocation may pass');
  await assert.rejects(keys.verifyToken(token), (e: { code?: string }) => e.code === 'invalid_api_key'); // not cached
});
