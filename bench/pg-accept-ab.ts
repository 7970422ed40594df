// PostgreSQL's CPU for the accept statement (store/emails.ts emailsInsertAccepted) on two databases
// that differ by one schema change, measured alternately (issue 27): A is the schema as migrated,
// B the same plus VARIANT_SQL (e.g. an index or a key dropped). Each round writes the same number
// of batches of 100 emails (one statement each, one connection per database) to A then B, or B then
// A, and reads each backend's CPU from /proc (utime+stime). Alternating rounds cancel the drift a
// shared machine shows between runs minutes apart, which hid changes of ~10% in whole benchmarks.
// Run an A/A first (VARIANT_SQL="SELECT 1") to see the noise: both sides agreed within ~2% here.
// Usage: MAILROOM_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5440/postgres \
//   VARIANT_SQL="DROP INDEX emails_search" node --import tsx bench/pg-accept-ab.ts [rounds=30] [batches=10]
// The server must be local (the backends' /proc is read). Both databases are fresh and dropped.
import { emailsInsertAccepted } from '../src/store/emails.js';
import { abSide, abSideEnd, acceptedEmails, type AbSide, ticksOf, usPerItem } from './pg-ab-lib.js';
import { loadAverage } from './lib.js';

const rounds = Number(process.argv[2] ?? 30);
const batches = Number(process.argv[3] ?? 10);
const PER_BATCH = 100;

const A = await abSide();
const B = await abSide(process.env.VARIANT_SQL);
try {
  for (let w = 0; w < 3; w++) for (const s of [A, B]) await emailsInsertAccepted(s.c, acceptedEmails(s, PER_BATCH)); // warm-up
  let bLower = 0;
  let ties = 0;
  for (let r = 0; r < rounds; r++) {
    const used = new Map<AbSide, number>();
    for (const s of r % 2 ? [B, A] : [A, B]) {
      const work = Array.from({ length: batches }, () => acceptedEmails(s, PER_BATCH));
      const d = await ticksOf(s, async () => {
        for (const w of work) await emailsInsertAccepted(s.c, w);
      });
      used.set(s, d);
      s.ticks += d;
      s.items += PER_BATCH * batches;
    }
    if (used.get(B)! < used.get(A)!) bLower++;
    else if (used.get(B) === used.get(A)) ties++;
  }
  console.log(
    JSON.stringify({
      a_us_per_email: usPerItem(A),
      b_us_per_email: usPerItem(B),
      emails_each: A.items,
      rounds,
      rounds_b_lower: bLower,
      rounds_tied: ties,
      variant: process.env.VARIANT_SQL ?? null,
      load: loadAverage(),
    }),
  );
} finally {
  for (const s of [A, B]) await abSideEnd(s);
}
