// The erasure job resumed after a crash (issue 29): a first run that stopped right after the sent
// mail was redacted left opens with their IP address and user agent; the job's next attempt finds
// those emails again by the placeholder and finishes, adding to the first run's counts; a third
// run finds nothing. The job handler is run directly on a real database (no worker, no HTTP).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { AddressHasher } from '../../src/lib/address-hash.js';
import { Sealer } from '../../src/lib/crypto.js';
import { createLogger } from '../../src/lib/log.js';
import { uuid } from '../../src/lib/ids.js';
import { privacyEraseJob } from '../../src/privacy/erase.job.js';
import { addressPattern } from '../../src/privacy/address-pattern.js';
import { erasedAddress, erasureEmails } from '../../src/store/privacy-erasure.js';
import { teamCreate } from '../../src/store/teams.js';
import type { Job } from '../../src/queue/worker.js';

const ADDR = 'rae@dest.test';
let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(() => db.drop());

test('a run resumed after a crash finishes the work and adds to the counts; a rerun finds nothing', async () => {
  const team = await teamCreate(db.pool, 'T');
  const hasher = new AddressHasher('test-secret');
  const sealer = new Sealer('test-secret');
  const emailId = uuid();
  await db.pool.query(
    `INSERT INTO emails (id, team_id, message_id, from_header, to_addrs, subject, html, last_event, raw)
     VALUES ($1, $2, '<m@x>', 'shop@example.com', $3, 'Hi', '<p>hi</p>', 'opened', $4)`,
    [emailId, team.id, [ADDR, 'zed@dest.test'], Buffer.from(`To: ${ADDR}, zed@dest.test\r\n\r\nhi`)],
  );
  await db.pool.query(
    `INSERT INTO email_events (id, email_id, team_id, type, recipient, data)
     VALUES ($1, $2, $3, 'email.opened', NULL, $4)`,
    [uuid(), emailId, team.id, { open: { ipAddress: '203.0.113.7', userAgent: 'RaeMail/1', timestamp: 'x' } }],
  );
  const requestId = uuid();
  await db.pool.query("INSERT INTO privacy_requests (id, team_id, kind, subject_hash) VALUES ($1, $2, 'erasure', $3)", [
    requestId,
    team.id,
    hasher.hash(ADDR),
  ]);

  // The first run got as far as the sent mail, and recorded it, before the process died.
  const scope = {
    teamId: team.id,
    addr: ADDR,
    re: addressPattern(ADDR),
    replacement: erasedAddress(hasher.hash(ADDR)),
  };
  const first = await erasureEmails(db.pool, scope);
  assert.deepEqual(first.addressed, [emailId]);
  await db.pool.query('UPDATE privacy_requests SET counts = $2 WHERE id = $1', [
    requestId,
    JSON.stringify({ emails_addressed: 1 }),
  ]);

  const run = privacyEraseJob({ pool: db.pool, hasher, sealer, log: createLogger('silent') });
  const job = (id: string) =>
    ({
      id: '0',
      kind: 'privacy.erase',
      payload: { request_id: id, team_id: team.id, email_sealed: sealer.seal(ADDR) },
    }) as unknown as Job<never>;
  await run(job(requestId));
  const { rows } = await db.pool.query("SELECT data FROM email_events WHERE type = 'email.opened'");
  assert.equal(rows[0].data.open.ipAddress, null, 'the open lost its IP address on the resumed run');
  assert.equal(rows[0].data.open.userAgent, null);
  const done = await db.pool.query('SELECT status, counts FROM privacy_requests WHERE id = $1', [requestId]);
  assert.equal(done.rows[0].status, 'completed');
  assert.equal(done.rows[0].counts.emails_addressed, 1, "the first run's count is kept");
  assert.equal(done.rows[0].counts.email_events, 1);

  const again = uuid();
  await db.pool.query("INSERT INTO privacy_requests (id, team_id, kind, subject_hash) VALUES ($1, $2, 'erasure', $3)", [
    again,
    team.id,
    hasher.hash(ADDR),
  ]);
  await run(job(again));
  const second = await db.pool.query('SELECT counts FROM privacy_requests WHERE id = $1', [again]);
  assert.deepEqual(
    Object.entries(second.rows[0].counts).filter(([, n]) => n !== 0),
    [],
  );
  const raw = await db.pool.query('SELECT raw, to_addrs FROM emails WHERE id = $1', [emailId]);
  assert.doesNotMatch(raw.rows[0].raw.toString(), /rae@/);
  assert.deepEqual(raw.rows[0].to_addrs, [scope.replacement, 'zed@dest.test']);
});
