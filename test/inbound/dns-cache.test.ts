import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cachedResolve } from '../../src/inbound/dns-cache.js';

test('DNS answers and "no such name" are cached for the configured time; other failures and 0 s are not', async () => {
  let clock = 0;
  const calls: string[] = [];
  const answers = new Map<string, () => Promise<unknown>>([
    ['TXT a.test', async () => [['v=spf1 -all']]],
    [
      'TXT missing.test',
      async () => {
        throw Object.assign(new Error('nx'), { code: 'ENOTFOUND' });
      },
    ],
    [
      'TXT flaky.test',
      async () => {
        throw Object.assign(new Error('timeout'), { code: 'ETIMEOUT' });
      },
    ],
  ]);
  const resolver = {
    resolve: (name: string, type: string) => {
      calls.push(`${type} ${name}`);
      return answers.get(`${type} ${name}`)!();
    },
  } as never;
  const resolve = cachedResolve(resolver, 60_000, () => clock);
  assert.deepEqual(await Promise.all([resolve('a.test', 'TXT'), resolve('A.TEST', 'TXT')]), [
    [['v=spf1 -all']],
    [['v=spf1 -all']],
  ]);
  await assert.rejects(resolve('missing.test', 'TXT'), { code: 'ENOTFOUND' });
  await assert.rejects(resolve('missing.test', 'TXT'), { code: 'ENOTFOUND' });
  await assert.rejects(resolve('flaky.test', 'TXT'), { code: 'ETIMEOUT' });
  await assert.rejects(resolve('flaky.test', 'TXT'), { code: 'ETIMEOUT' });
  assert.deepEqual(
    calls,
    ['TXT a.test', 'TXT missing.test', 'TXT flaky.test', 'TXT flaky.test'],
    'one lookup in flight is shared; timeouts are asked again',
  );
  clock = 60_001;
  await resolve('a.test', 'TXT');
  assert.equal(calls.filter((c) => c === 'TXT a.test').length, 2, 'expired after the cache time');
  const uncached = cachedResolve(resolver, 0);
  await uncached('a.test', 'TXT');
  await uncached('a.test', 'TXT');
  assert.equal(calls.filter((c) => c === 'TXT a.test').length, 4);
});
