// Per-team retention of received mail (issue 29), on a real database: receivedEmailsPurge (the
// received_emails.retention job's statement) drops the raw message and attachment contents of a
// team whose received_emails_days has passed, and keeps another team's of the same age, which the
// global MAILROOM_RETENTION_DAYS still covers; the return-path reports likewise.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { uuid } from '../../src/lib/ids.js';
import { receivedEmailsPurge } from '../../src/store/received-emails.js';
import { teamRetentionSet } from '../../src/store/privacy.js';
import { teamCreate } from '../../src/store/teams.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(() => db.drop());

async function received(teamId: string) {
  const id = uuid();
  const blob = uuid();
  await db.pool.query('INSERT INTO blob_chunks (blob_id, n, data) VALUES ($1, 0, $2)', [blob, Buffer.from('raw')]);
  await db.pool.query(
    `INSERT INTO received_emails (id, team_id, mail_from, received_for, from_addr, headers, raw_blob, raw_size, created_at)
     VALUES ($1, $2, 'a@x.test', '{b@y.test}', 'a@x.test', '{}', $3, 3, now() - interval '5 days')`,
    [id, teamId, blob],
  );
  await db.pool.query(
    `INSERT INTO return_path_messages (id, team_id, kind, mail_from, rcpt_to, detail, raw, created_at)
     VALUES ($1, $2, 'bounce', '', 'bounces@y.test', '{}', 'raw', now() - interval '5 days')`,
    [uuid(), teamId],
  );
  return { id, blob };
}

test("a team's received_emails_days purges its old raw messages and not another team's", async () => {
  const a = await teamCreate(db.pool, 'A');
  const b = await teamCreate(db.pool, 'B');
  await teamRetentionSet(db.pool, a.id, { received_emails: 2 });
  const ra = await received(a.id);
  const rb = await received(b.id);
  assert.equal(await receivedEmailsPurge(db.pool, 30), 2, "A's message and A's report");
  const rows = await db.pool.query('SELECT id, raw_blob FROM received_emails');
  const blobOf = new Map(rows.rows.map((r) => [r.id, r.raw_blob]));
  assert.equal(blobOf.get(ra.id), null);
  assert.equal(blobOf.get(rb.id), rb.blob);
  const chunks = await db.pool.query('SELECT blob_id FROM blob_chunks');
  assert.deepEqual(
    chunks.rows.map((r) => r.blob_id),
    [rb.blob],
  );
  const reports = await db.pool.query(
    'SELECT team_id, raw IS NULL AS purged FROM return_path_messages ORDER BY team_id',
  );
  assert.deepEqual(Object.fromEntries(reports.rows.map((r) => [r.team_id, r.purged])), { [a.id]: true, [b.id]: false });
  assert.equal(await receivedEmailsPurge(db.pool, 30), 0, 'nothing more');
  assert.equal(await receivedEmailsPurge(db.pool, 4), 2, 'the global setting still applies to B');
});
