// Migration 0077 (issue 27): emails and email_events no longer check their team and domain with
// foreign keys on every insert; what the keys did on delete is done by triggers. A team's delete
// takes its emails and their events with it (another team's stay); a domain's delete leaves its
// emails with no domain, system mail sent from it included. And the accept statement takes no lock
// on the team's or domain's row any more: it goes through while another transaction holds them
// FOR UPDATE (with the keys it waited, each check a FOR KEY SHARE lock).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import { SYSTEM_TEAM_ID } from '../../src/store/teams.js';
import { emailsInsertAccepted, type AcceptedEmail } from '../../src/store/emails.js';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase();
});
after(async () => {
  await db.drop();
});

async function team(name: string): Promise<{ team: string; domain: string }> {
  const t = randomUUID();
  const d = randomUUID();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [t, name]);
  await seedDomain(db.pool, { id: d, teamId: t, name: `${name}.test` });
  return { team: t, domain: d };
}

/** An email with its `email.sent` event, as the accept path writes them. */
function accepted(teamId: string, domainId: string): AcceptedEmail {
  const id = randomUUID();
  const now = new Date().toISOString();
  return {
    row: {
      id,
      team_id: teamId,
      domain_id: domainId,
      api_key_id: null,
      source: 'api',
      message_id: `<${id}@x.test>`,
      from_header: 'a@x.test',
      to_addrs: ['r@y.test'],
      cc_addrs: [],
      bcc_addrs: [],
      reply_to: [],
      subject: 's',
      html: '<p>h</p>',
      text_body: 'h',
      headers: null,
      tags: [],
      scheduled_at: null,
      last_event: 'sent',
      created_at: now,
    },
    raw: Buffer.from('Subject: s\r\n\r\nh\r\n'),
    event: {
      id: randomUUID(),
      email_id: id,
      team_id: teamId,
      type: 'email.sent',
      recipient: null,
      data: {},
      created_at: now,
    },
    jobs: [],
  };
}

const count = async (sql: string, args: unknown[]) => Number((await db.pool.query(sql, args)).rows[0].n);

test('deleting a team deletes its emails and their events, and nothing of another team', async () => {
  const a = await team('gone');
  const b = await team('kept');
  await emailsInsertAccepted(db.pool, [
    accepted(a.team, a.domain),
    accepted(a.team, a.domain),
    accepted(b.team, b.domain),
  ]);
  await db.pool.query('DELETE FROM teams WHERE id = $1', [a.team]);
  for (const [t, n] of [
    [a.team, 0],
    [b.team, 1],
  ] as const) {
    assert.equal(await count('SELECT count(*) AS n FROM emails WHERE team_id = $1', [t]), n);
    assert.equal(
      await count(`SELECT count(*) AS n FROM email_events WHERE team_id = $1 AND type = 'email.sent'`, [t]),
      n,
    );
  }
});

test("deleting a domain leaves its emails with no domain, the system team's too, and another domain's as they were", async () => {
  const a = await team('dom');
  const other = randomUUID();
  await seedDomain(db.pool, { id: other, teamId: a.team, name: 'other.dom.test' });
  const mine = accepted(a.team, a.domain);
  const system = accepted(SYSTEM_TEAM_ID, a.domain); // system mail sent from the team's domain
  const elsewhere = accepted(a.team, other);
  await emailsInsertAccepted(db.pool, [mine, system, elsewhere]);
  await db.pool.query('DELETE FROM domains WHERE id = $1', [a.domain]);
  const { rows } = await db.pool.query<{ id: string; domain_id: string | null }>(
    'SELECT id, domain_id FROM emails WHERE id = ANY($1::uuid[])',
    [[mine.row.id, system.row.id, elsewhere.row.id]],
  );
  const by = new Map(rows.map((r) => [r.id, r.domain_id]));
  assert.equal(by.get(mine.row.id), null);
  assert.equal(by.get(system.row.id), null);
  assert.equal(by.get(elsewhere.row.id), other);
});

test("the accept statement does not wait for a lock held on the team's or the domain's row", async () => {
  const a = await team('locked');
  const holder = await db.pool.connect();
  const writer = await db.pool.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM teams WHERE id = $1 FOR UPDATE', [a.team]);
    await holder.query('SELECT 1 FROM domains WHERE id = $1 FOR UPDATE', [a.domain]);
    await writer.query(`SET lock_timeout = '2s'`);
    const e = accepted(a.team, a.domain);
    await emailsInsertAccepted(writer, [e]); // with the keys: "canceling statement due to lock timeout"
    assert.equal(await count('SELECT count(*) AS n FROM emails WHERE id = $1', [e.row.id]), 1);
  } finally {
    await holder.query('ROLLBACK');
    await writer.query('RESET lock_timeout');
    holder.release();
    writer.release();
  }
});
