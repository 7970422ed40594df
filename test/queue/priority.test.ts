// Transactional mail overtakes list mail in the delivery queue (jobs.priority, 0031): with a due
// backlog of broadcast deliveries, older than it, a receipt's delivery job is claimed first, then
// an automation's, then the broadcast's in run_at order. The SQL is the send path's own fragments.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { DELIVER_JOB, DELIVERY_PRIORITY, deliverJobsForRecipientsSql, deliverJobsInsertSql, jobsClaimDue } from '../../src/store/jobs.js';

let db: TestDatabase;
before(async () => { db = await freshDatabase(); });
after(async () => { await db?.drop(); });

test('due jobs are claimed by priority (transactional, automation, broadcast), then oldest first', async () => {
  const team = randomUUID();
  // 200 broadcast deliveries due a minute ago, as a broadcast page writes them.
  const ids = Array.from({ length: 200 }, () => randomUUID());
  await db.pool.query(
    `WITH r AS (SELECT unnest($1::uuid[]) AS id, 'reader@dest.test' AS address, 'dest.test' AS rcpt_domain)
     ${deliverJobsForRecipientsSql('r', '$2', '$3', '$4')}`, [ids, team, new Date(Date.now() - 60_000), 'us-east-1']);
  // Then an automation's and a receipt's, due now, through the send statement's fragment.
  const job = (kind: string, priority: number | undefined) => ({ payload: { email_id: randomUUID(), team_id: team, domain: 'dest.test', recipients: [`${kind}@dest.test`] }, run_at: new Date().toISOString(), region: 'us-east-1', ...(priority === undefined ? {} : { priority }) });
  await db.pool.query(deliverJobsInsertSql('$1'), [JSON.stringify([job('automation', DELIVERY_PRIORITY.automation)])]);
  await db.pool.query(deliverJobsInsertSql('$1'), [JSON.stringify([job('receipt', undefined)])]); // no priority given: transactional
  const claim = async () => (await jobsClaimDue(db.pool, 'w1', { kinds: [DELIVER_JOB] }, 1, 60_000))[0];
  assert.deepEqual((await claim()).payload.recipients, ['receipt@dest.test']);
  assert.deepEqual((await claim()).payload.recipients, ['automation@dest.test']);
  const first = await claim();
  assert.ok(ids.includes(first.payload.email_id as string), 'a broadcast delivery comes third');
  assert.deepEqual(first.payload.recipients, ['reader@dest.test']);
  const { rows } = await db.pool.query<{ priority: number; n: number }>('SELECT priority, count(*)::int AS n FROM jobs GROUP BY priority ORDER BY priority');
  assert.deepEqual(rows, [{ priority: 0, n: 1 }, { priority: 1, n: 1 }, { priority: 2, n: 200 }]);
});
