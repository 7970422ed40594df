// Broadcast expansion: N contacts of a segment turned into queued, personalized emails (unsubscribe
// link, ~3.5 KB html) by the broadcasts.expand job, while the same process delivers them in capture
// mode; in-process (test harness, api + worker roles, a fresh database). Peer in the same run: a
// bare `INSERT ... SELECT` copying the same N email rows (raw bodies included) inside PostgreSQL.
// Usage: MAILROOM_TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node --import tsx bench/broadcast-expand.ts [contacts=20000]
import os from 'node:os';
import { startTestApp } from '../test/helpers/harness.js';

const N = Number(process.argv[2] ?? 20_000);
const t = await startTestApp({ deliveryMode: 'capture', broadcastQueueWindow: 1_000_000 });
try {
  await t.resend.domains.verify((await t.resend.domains.create({ name: 'example.com' })).data!.id);
  const seg = (await t.resend.segments.create({ name: 'All' })).data!.id;
  await t.db.pool.query(
    `WITH c AS (INSERT INTO contacts (id, team_id, email, first_name, created_at)
       SELECT gen_random_uuid(), $1, 'u' || i || '@dest.test', 'U' || i, now() - (($2 - i) * interval '1 millisecond') FROM generate_series(1, $2) i RETURNING id)
     INSERT INTO contact_segments (contact_id, segment_id) SELECT id, $3 FROM c`, [t.app.defaultTeamId, N, seg]);
  const html = '<p>Hello {{{contact.first_name|there}}}</p>' + '<p>Lorem ipsum dolor sit amet.</p>'.repeat(100) + '<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">unsubscribe</a>';
  const t0 = Date.now();
  const b = await t.resend.broadcasts.create({ segmentId: seg, from: 'n@example.com', subject: 'Hi {{{FIRST_NAME}}}', html, send: true });
  const sendMs = Date.now() - t0;
  for (;;) {
    const r = (await t.db.pool.query('SELECT status FROM broadcasts WHERE id = $1', [b.data!.id])).rows[0];
    if (r.status === 'sent') break;
    await new Promise((res) => setTimeout(res, 50));
  }
  const expandMs = Date.now() - t0;
  const t1 = Date.now();
  await t.db.pool.query(
    `INSERT INTO emails (id, team_id, domain_id, source, message_id, from_header, to_addrs, subject, html, text_body, last_event, raw)
     SELECT gen_random_uuid(), team_id, domain_id, 'bench', message_id || 'x', from_header, to_addrs, subject, html, text_body, last_event, raw
     FROM emails WHERE broadcast_id = $1`, [b.data!.id]);
  const bareMs = Date.now() - t1;
  console.log(JSON.stringify({
    contacts: N, send_answer_ms: sendMs, expansion_ms: expandMs, recipients_per_s: Math.round(N / (expandMs / 1000)),
    bare_insert_select_ms: bareMs, bare_rows_per_s: Math.round(N / (bareMs / 1000)), cpus: os.cpus().length, load: os.loadavg().map((x) => x.toFixed(1)).join(' '),
  }));
} finally {
  await t.close();
}
