// OAuth codes and tokens a day past their expiry are deleted by the hourly expiry job's statement;
// live ones and those expired less than a day ago (still recognised when reused) stay.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import {
  oauthClientInsert,
  oauthCodeInsert,
  oauthDeleteExpired,
  oauthGrantInsert,
  oauthTokenInsert,
} from '../../src/store/oauth.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
});

test('codes and tokens a day past expiry go; live and recently expired ones stay', async () => {
  const team = (
    await db.pool.query<{ id: string }>(`INSERT INTO teams (id, name) VALUES (gen_random_uuid(), 'T') RETURNING id`)
  ).rows[0].id;
  const clientId = randomUUID();
  await oauthClientInsert(db.pool, {
    id: clientId,
    name: 'App',
    logoUri: null,
    redirectUris: ['https://app.test/cb'],
    secretHash: null,
  });
  const grant = { id: randomUUID() };
  await oauthGrantInsert(db.pool, { id: grant.id, teamId: team, clientId, userId: null, scopes: ['full_access'] });
  const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);
  const ages = { live: -1, recent: 2, old: 30 };
  for (const [name, h] of Object.entries(ages)) {
    await oauthTokenInsert(db.pool, {
      tokenHash: `access-${name}`,
      grantId: grant.id,
      kind: 'access',
      expiresAt: hoursAgo(h),
    });
    await oauthTokenInsert(db.pool, {
      tokenHash: `refresh-${name}`,
      grantId: grant.id,
      kind: 'refresh',
      expiresAt: hoursAgo(h),
    });
    await oauthCodeInsert(db.pool, {
      codeHash: `code-${name}`,
      clientId,
      teamId: team,
      userId: null as unknown as string,
      scopes: ['full_access'],
      redirectUri: 'https://app.test/cb',
      codeChallenge: 'x',
      expiresAt: hoursAgo(h),
    });
  }
  assert.equal(await oauthDeleteExpired(db.pool), 3);
  const tokens = (await db.pool.query('SELECT token_hash FROM oauth_tokens ORDER BY 1')).rows.map((r) => r.token_hash);
  assert.deepEqual(tokens, ['access-live', 'access-recent', 'refresh-live', 'refresh-recent']);
  const codes = (await db.pool.query('SELECT code_hash FROM oauth_codes ORDER BY 1')).rows.map((r) => r.code_hash);
  assert.deepEqual(codes, ['code-live', 'code-recent']);
  assert.equal(await oauthDeleteExpired(db.pool), 0);
});
