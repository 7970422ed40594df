// The received-mail insert says which of its emails are addressed to an inbox of their team, so the
// MX files only those (issue 27: the inbox lookup it replaces was a query per received message):
// an address of the team's inbox counts, the same address on another team's email does not, and
// an email to no inbox is stored all the same.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import { receivedEmailsInsert, type ReceivedInsert } from '../../src/store/received-emails.js';

let db: TestDatabase;
const teamA = randomUUID();
const teamB = randomUUID();
const domainA = randomUUID();
const domainB = randomUUID();

before(async () => {
  db = await freshDatabase();
  for (const [team, domain, name] of [
    [teamA, domainA, 'a.test'],
    [teamB, domainB, 'b.test'],
  ]) {
    await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, name]);
    await seedDomain(db.pool, { id: domain, teamId: team, name });
  }
  await db.pool.query(
    `INSERT INTO inboxes (id, team_id, domain_id, email_address) VALUES ($1, $2, $3, 'support@a.test')`,
    [randomUUID(), teamA, domainA],
  );
});
after(async () => {
  await db.drop();
});

function received(team: string, domain: string, receivedFor: string[]): ReceivedInsert {
  const id = randomUUID();
  const createdAt = new Date().toISOString();
  return {
    email: {
      id,
      team_id: team,
      domain_id: domain,
      mail_from: 'x@sender.test',
      received_for: receivedFor,
      from_addr: 'x@sender.test',
      to_addrs: receivedFor,
      cc_addrs: [],
      bcc_addrs: [],
      reply_to: [],
      subject: 'hello',
      message_id: `<${id}@sender.test>`,
      html: null,
      text_body: 'hi',
      headers: { subject: 'hello' },
      authentication: { spf: 'pass', dkim: 'pass', dmarc: 'pass', arc: 'gray' },
      client_ip: '127.0.0.1',
      helo: 'sender.test',
      tls: false,
      raw_blob: null,
      raw_size: 10,
      created_at: createdAt,
    },
    attachments: [],
    event: {
      id: randomUUID(),
      email_id: id,
      team_id: team,
      type: 'email.received',
      recipient: null,
      data: {},
      detail: {},
      created_at: createdAt,
    },
  };
}

test('the insert returns the ids of the emails addressed to an inbox of their own team, and stores them all', async () => {
  const toInbox = received(teamA, domainA, ['sales@a.test', 'support@a.test']);
  const toNoInbox = received(teamA, domainA, ['sales@a.test']);
  const otherTeam = received(teamB, domainB, ['support@a.test']); // not team B's inbox
  const inInbox = await receivedEmailsInsert(db.pool, [toInbox, toNoInbox, otherTeam], []);
  assert.deepEqual([...inInbox], [toInbox.email.id]);
  const { rows } = await db.pool.query('SELECT count(*)::int AS n FROM received_emails');
  assert.equal(rows[0].n, 3);
  const alone = received(teamA, domainA, ['support@a.test']);
  assert.deepEqual([...(await receivedEmailsInsert(db.pool, [alone], []))], [alone.email.id]);
});
