// Transactional mail overtakes list mail in the delivery queue (jobs.priority, 0031): with a due
// backlog of broadcast deliveries, older than it, a receipt's delivery job is claimed first, then
// an automation's, then the broadcast's in run_at order. The SQL is the send path's own fragments.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import {
  DELIVER_BATCH_JOB,
  DELIVER_JOB,
  DELIVERY_BATCH,
  DELIVERY_PRIORITY,
  deliverBatchJobsSql,
  deliverJobsInsertSql,
  jobsClaimDue,
} from '../../src/store/jobs.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db?.drop();
});

test('due jobs are claimed by priority (transactional, automation, broadcast), then oldest first', async () => {
  const team = randomUUID();
  // 200 broadcast copies due a minute ago, as a broadcast page writes them: 150 to dest.test, 50
  // to other.test, in runs of DELIVERY_BATCH per destination domain.
  const ids = Array.from({ length: 200 }, () => randomUUID());
  await db.pool.query(
    `WITH r AS (SELECT id, CASE WHEN n <= 150 THEN 'reader' || n || '@Dest.test' ELSE 'reader' || n || '@other.test' END AS address,
                       CASE WHEN n <= 150 THEN 'dest.test' ELSE 'other.test' END AS rcpt_domain
                FROM unnest($1::uuid[]) WITH ORDINALITY AS u (id, n))
     ${deliverBatchJobsSql('r', '$2', '$5', '$3', '$4')}`,
    [ids, team, new Date(Date.now() - 60_000), 'us-east-1', randomUUID()],
  );
  const batches = (
    await db.pool.query<{ payload: { domain: string; emails: [string, string][] } }>(
      `SELECT payload FROM jobs WHERE priority = 2`,
    )
  ).rows.map((r) => r.payload);
  assert.equal(batches.length, 200 / DELIVERY_BATCH);
  assert.deepEqual(
    batches.flatMap((b) => b.emails.map(([id]) => id)).sort(),
    [...ids].sort(),
    'each copy in one batch',
  );
  for (const b of batches) {
    assert.equal(b.emails.length, DELIVERY_BATCH);
    assert.ok(
      b.emails.every(([, to]) => to.endsWith(`@${b.domain}`) && to === to.toLowerCase()),
      JSON.stringify(b),
    );
  }
  // Then an automation's and a receipt's, due now, through the send statement's fragment.
  const job = (kind: string, priority: number | undefined) => ({
    payload: { email_id: randomUUID(), team_id: team, domain: 'dest.test', recipients: [`${kind}@dest.test`] },
    run_at: new Date().toISOString(),
    region: 'us-east-1',
    ...(priority === undefined ? {} : { priority }),
  });
  await db.pool.query(deliverJobsInsertSql('$1'), [JSON.stringify([job('automation', DELIVERY_PRIORITY.automation)])]);
  await db.pool.query(deliverJobsInsertSql('$1'), [JSON.stringify([job('receipt', undefined)])]); // no priority given: transactional
  const claim = async () =>
    (await jobsClaimDue(db.pool, 'w1', { kinds: [DELIVER_JOB, DELIVER_BATCH_JOB] }, 1, 60_000))[0];
  const recipients = async () => ((await claim()).payload as { recipients: string[] }).recipients;
  assert.deepEqual(await recipients(), ['receipt@dest.test']);
  assert.deepEqual(await recipients(), ['automation@dest.test']);
  const first = await claim();
  assert.equal(first.kind, DELIVER_BATCH_JOB);
  assert.equal((first.payload as { emails: unknown[] }).emails.length, DELIVERY_BATCH, 'a broadcast batch comes third');
  const { rows } = await db.pool.query<{ priority: number; n: number }>(
    'SELECT priority, count(*)::int AS n FROM jobs GROUP BY priority ORDER BY priority',
  );
  assert.deepEqual(rows, [
    { priority: 0, n: 1 },
    { priority: 1, n: 1 },
    { priority: 2, n: 200 / DELIVERY_BATCH },
  ]);
});
