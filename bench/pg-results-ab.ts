// PostgreSQL's CPU for the delivery results' statement (store/email-delivery.ts
// emailEventsInsertMany) on two databases that differ by one schema change, measured alternately
// (issue 27; the method of bench/pg-accept-ab.ts). Each round accepts emails and leases their
// delivery jobs on a setup connection, then records each email delivered (its email.delivered
// event, last_event, its job ended) in statements of GROUP emails on the measured connection, A
// then B or B then A. Only the recording is measured. GROUP is what separates a statement's fixed
// cost from its cost per email (delivery records ~1.7 emails a statement, RECORDS_IN_FLIGHT).
// Usage: MAILROOM_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5440/postgres \
//   VARIANT_SQL="DROP TRIGGER email_events_count_rates ON email_events" \
//   node --import tsx bench/pg-results-ab.ts [rounds=20] [statements=50] [group=2]
import { emailsInsertAccepted } from '../src/store/emails.js';
import { emailEventsInsertMany, type EventGroup } from '../src/store/email-delivery.js';
import { DELIVER_JOB, jobsClaimDue } from '../src/store/jobs.js';
import { makeEvent } from '../src/events/email-events.js';
import { abSide, abSideEnd, acceptedEmails, type AbSide, ticksOf, usPerItem } from './pg-ab-lib.js';
import { loadAverage } from './lib.js';

const rounds = Number(process.argv[2] ?? 20);
const statements = Number(process.argv[3] ?? 50);
const group = Number(process.argv[4] ?? 2);
const WORKER = 'ab-worker';

/** Accepted emails with their jobs leased, as groups of results ready to record. */
async function ready(s: AbSide, n: number): Promise<EventGroup[]> {
  const groups: EventGroup[] = [];
  for (let left = n; left > 0; left -= 100) {
    const emails = acceptedEmails(s, Math.min(100, left));
    await emailsInsertAccepted(s.setup, emails);
    const jobs = await jobsClaimDue(s.setup, WORKER, { kinds: [DELIVER_JOB] }, emails.length, 600_000);
    if (jobs.length !== emails.length) throw new Error(`leased ${jobs.length} of ${emails.length} jobs`);
    const rows = new Map(emails.map((x) => [x.row.id, x.row]));
    for (const j of jobs) {
      const p = j.payload as { email_id: string; recipients: string[] };
      const event = makeEvent(rows.get(p.email_id) as never, 'email.delivered', {
        recipient: p.recipients[0],
        detail: {
          response: '250 2.0.0 Ok: queued as 4Z',
          code: 250,
          enhanced: '2.0.0',
          mx_host: 'mx.sink.test',
          tls: true,
          attempt: 1,
        },
      });
      groups.push({ events: [event], lastEvent: 'delivered', endJob: { id: j.id, workerId: WORKER } });
    }
  }
  return groups;
}

const A = await abSide();
const B = await abSide(process.env.VARIANT_SQL);
try {
  // Warm-up on tables of a few thousand rows, analyzed: a session keeps the generic plan it made at
  // its first statements, and one made while emails held a few dozen rows reads emails
  // sequentially (a hash join) for the rest of the session, a cost growing with the table.
  for (const s of [A, B]) {
    for (const g of await ready(s, 3000)) await emailEventsInsertMany(s.setup, [g]);
    await s.setup.query('ANALYZE');
    for (const g of await ready(s, 40)) await emailEventsInsertMany(s.c, [g]);
  }
  let bLower = 0;
  let ties = 0;
  for (let r = 0; r < rounds; r++) {
    const used = new Map<AbSide, number>();
    for (const s of r % 2 ? [B, A] : [A, B]) {
      const groups = await ready(s, statements * group);
      const d = await ticksOf(s, async () => {
        for (let i = 0; i < groups.length; i += group) await emailEventsInsertMany(s.c, groups.slice(i, i + group));
      });
      used.set(s, d);
      s.ticks += d;
      s.items += groups.length;
    }
    if (used.get(B)! < used.get(A)!) bLower++;
    else if (used.get(B) === used.get(A)) ties++;
  }
  const left = await A.setup.query(`SELECT count(*)::int AS n FROM jobs WHERE kind = '${DELIVER_JOB}'`);
  console.log(
    JSON.stringify({
      a_us_per_email: usPerItem(A),
      b_us_per_email: usPerItem(B),
      emails_each: A.items,
      group,
      rounds,
      rounds_b_lower: bLower,
      rounds_tied: ties,
      a_jobs_left: left.rows[0].n,
      variant: process.env.VARIANT_SQL ?? null,
      load: loadAverage(),
    }),
  );
} finally {
  for (const s of [A, B]) await abSideEnd(s);
}
