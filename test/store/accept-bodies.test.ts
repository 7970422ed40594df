// Issue 27, the accept path's PostgreSQL cost: migration 0076 stores the large values of an
// accepted email and of a request log lz4-compressed (pglz cost most of the accept statement's CPU
// for a 20 KB email), and the accept and request-log statements take their rows as jsonb (parsed
// once) instead of json (parsed by json_in, again by json_populate_recordset, then each jsonb field a
// third time). Neither may change what is stored or read back: compared here against the old json
// statement, field by field, and against a value stored pglz before the migration.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { freshDatabase, seedDomain, type TestDatabase } from '../helpers/db.js';
import { emailsInsertAccepted, type AcceptedEmail } from '../../src/store/emails.js';
import { requestLogFind, requestLogInsertMany, type RequestLogRow } from '../../src/store/request-logs.js';

let db: TestDatabase;
const team = randomUUID();
const domain = randomUUID();

before(async () => {
  db = await freshDatabase();
  await db.pool.query('INSERT INTO teams (id, name) VALUES ($1, $2)', [team, 'bodies']);
  await seedDomain(db.pool, { id: domain, teamId: team, name: 'bodies.test' });
});
after(async () => {
  await db.drop();
});

/** Varied HTML of about `n` characters: over TOAST's ~2 KB threshold, so PostgreSQL compresses it. */
const bigHtml = (n: number) => {
  let h = '';
  for (let i = 0; h.length < n; i++)
    h += `<p class="c${i % 7}">line ${i} é€😀 <a href="https://x.test/${(i * 7919) % 100003}">${i}</a></p>\n`;
  return h;
};

/** Strings, numbers and nesting that JSON and jsonb could read differently. */
const tricky = {
  s: 'quote " backslash \\ slash / tab \t newline \n \u2028 \u00e9 😀 \u001f',
  n: [0, -1, 1.5, 0.1, 1e21, 123456789012345680000, -0, 2 ** 53 + 1],
  nested: { b: [null, true, false, {}, [], ''], a: { z: 1, a: 2 } },
  empty: '',
  nul: null,
};

function accepted(html: string | null, text: string | null): AcceptedEmail {
  const id = randomUUID();
  const created = new Date().toISOString();
  return {
    row: {
      id,
      team_id: team,
      domain_id: domain,
      api_key_id: null,
      source: 'api',
      message_id: `<${id}@bodies.test>`,
      from_header: 'Bodies "Q" <a@bodies.test>',
      to_addrs: ['R@Example.org', 'ü@x.test'],
      cc_addrs: [],
      bcc_addrs: ['b@x.test'],
      reply_to: [],
      subject: tricky.s,
      html,
      text_body: text,
      headers: [{ name: 'X-Tricky', value: tricky.s }],
      tags: [{ name: 'k', value: 'v"\\' }],
      scheduled_at: null,
      last_event: 'sent',
      created_at: created,
      insights: [tricky],
    },
    raw: Buffer.from(`Subject: x\r\n\r\n${html ?? text ?? ''}`),
    event: {
      id: randomUUID(),
      email_id: id,
      team_id: team,
      type: 'email.sent',
      recipient: null,
      data: tricky,
      detail: null,
      created_at: created,
    },
    jobs: [
      {
        payload: { email_id: id, team_id: team, domain: 'example.org', recipients: ['r@example.org'] },
        run_at: created,
        region: 'default',
      },
    ],
  };
}

test('an accepted email is stored field by field as the json statement stored it', async () => {
  const emails = [accepted(bigHtml(20_000), 'plain'), accepted(null, bigHtml(5_000)), accepted('<p>small</p>', null)];
  await emailsInsertAccepted(db.pool, emails);
  // the statement before: the same rows through json_populate_recordset into a copy of the table
  const client = await db.pool.connect();
  try {
    await client.query('CREATE TEMP TABLE emails_old AS SELECT * FROM emails WITH NO DATA');
    await client.query('CREATE TEMP TABLE events_old AS SELECT * FROM email_events WITH NO DATA');
    await client.query(`INSERT INTO emails_old SELECT * FROM json_populate_recordset(NULL::emails, $1::json)`, [
      JSON.stringify(emails.map((e) => e.row)),
    ]);
    await client.query(`INSERT INTO events_old SELECT * FROM json_populate_recordset(NULL::email_events, $1::json)`, [
      JSON.stringify(emails.map((e) => e.event)),
    ]);
    const cols = `id, team_id, domain_id, api_key_id, source, message_id, from_header, to_addrs, cc_addrs, bcc_addrs, reply_to,
      subject, html, text_body, headers, tags, scheduled_at, last_event, created_at, topic_id, list_id, broadcast_id, insights, automation_id`;
    const diff = await client.query(
      `(SELECT ${cols} FROM emails WHERE team_id = $1 EXCEPT SELECT ${cols} FROM emails_old)
       UNION ALL (SELECT ${cols} FROM emails_old EXCEPT SELECT ${cols} FROM emails WHERE team_id = $1)`,
      [team],
    );
    assert.equal(diff.rowCount, 0, JSON.stringify(diff.rows).slice(0, 500));
    const evDiff = await client.query(
      `SELECT count(*)::int AS n FROM (SELECT id, email_id, team_id, type, recipient, data::text, detail::text, created_at FROM email_events WHERE team_id = $1
        EXCEPT SELECT id, email_id, team_id, type, recipient, data::text, detail::text, created_at FROM events_old) d`,
      [team],
    );
    assert.equal(evDiff.rows[0].n, 0);
  } finally {
    client.release();
  }
  const { rows } = await db.pool.query(
    `SELECT e.id, e.html, e.text_body, e.insights, e.raw, ev.data, j.payload FROM emails e
     JOIN email_events ev ON ev.email_id = e.id JOIN jobs j ON j.payload->>'email_id' = e.id::text WHERE e.team_id = $1`,
    [team],
  );
  assert.equal(rows.length, 3, 'every email its row, event and job');
  for (const r of rows) {
    const e = emails.find((x) => x.row.id === r.id)!;
    assert.equal(r.html, e.row.html);
    assert.equal(r.text_body, e.row.text_body);
    assert.deepEqual(r.raw, e.raw);
    assert.deepEqual(r.data, JSON.parse(JSON.stringify(tricky)));
    assert.deepEqual(r.insights, JSON.parse(JSON.stringify([tricky])));
    assert.deepEqual(r.payload, e.jobs[0].payload);
  }
});

async function lz4Supported(): Promise<boolean> {
  const client = await db.pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL default_toast_compression = lz4`);
    return true;
  } catch {
    return false;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
  }
}

test('large bodies are stored lz4; a value stored pglz before the migration reads the same', async (t) => {
  if (!(await lz4Supported())) {
    t.skip('this PostgreSQL is built without lz4: 0076 keeps pglz');
    return;
  }
  const html = bigHtml(20_000);
  const e = accepted(html, bigHtml(3_000));
  await emailsInsertAccepted(db.pool, [e]);
  const log: RequestLogRow = {
    id: randomUUID(),
    team_id: team,
    api_key_id: null,
    method: 'POST',
    endpoint: '/emails/batch',
    path: '/emails/batch',
    status: 200,
    error_name: null,
    user_agent: 'test',
    ip: '127.0.0.1',
    request_body: Array.from({ length: 100 }, (_, i) => ({ to: `r${i}@x.test`, html: bigHtml(300), tricky })),
    response_body: { data: Array.from({ length: 100 }, () => ({ id: randomUUID() })) },
    duration_ms: 3,
    created_at: new Date().toISOString(),
  };
  await requestLogInsertMany(db.pool, [log]);
  const { rows } = await db.pool.query(
    `SELECT pg_column_compression(raw) AS raw, pg_column_compression(html) AS html, pg_column_compression(text_body) AS text
     FROM emails WHERE id = $1`,
    [e.row.id],
  );
  assert.deepEqual(rows[0], { raw: 'lz4', html: 'lz4', text: 'lz4' });
  const l = await db.pool.query(
    `SELECT pg_column_compression(request_body) AS req, pg_column_compression(response_body) AS res FROM request_logs WHERE id = $1`,
    [log.id],
  );
  assert.deepEqual(l.rows[0], { req: 'lz4', res: 'lz4' });
  const found = await requestLogFind(db.pool, team, log.id);
  assert.deepEqual(found?.request_body, JSON.parse(JSON.stringify(log.request_body)));
  assert.deepEqual(found?.response_body, log.response_body);

  // a value written before 0076 (pglz) next to the new ones
  const old = { ...log, id: randomUUID() };
  const client = await db.pool.connect();
  try {
    await client.query('ALTER TABLE request_logs ALTER COLUMN request_body SET COMPRESSION pglz');
    await requestLogInsertMany(client, [old]);
    await client.query('ALTER TABLE request_logs ALTER COLUMN request_body SET COMPRESSION lz4');
  } finally {
    client.release();
  }
  const o = await db.pool.query(`SELECT pg_column_compression(request_body) AS req FROM request_logs WHERE id = $1`, [
    old.id,
  ]);
  assert.equal(o.rows[0].req, 'pglz');
  assert.deepEqual((await requestLogFind(db.pool, team, old.id))?.request_body, found?.request_body);
});

test('a request log row is stored as the json statement stored it', async () => {
  const row: RequestLogRow = {
    id: randomUUID(),
    team_id: team,
    api_key_id: null,
    method: 'POST',
    endpoint: '/emails',
    path: '/emails?x="y"',
    status: 422,
    error_name: 'validation_error',
    user_agent: tricky.s,
    ip: null,
    request_body: tricky,
    response_body: [tricky, 'string body', 5, null],
    duration_ms: 12,
    created_at: new Date().toISOString(),
  };
  const noBody = { ...row, id: randomUUID(), request_body: null, response_body: null };
  await requestLogInsertMany(db.pool, [row, noBody]);
  const client = await db.pool.connect();
  try {
    await client.query('CREATE TEMP TABLE logs_old AS SELECT * FROM request_logs WITH NO DATA');
    await client.query(`INSERT INTO logs_old SELECT * FROM json_populate_recordset(NULL::request_logs, $1::json)`, [
      JSON.stringify([row, noBody]),
    ]);
    const cols = `id, team_id, api_key_id, method, endpoint, path, status, error_name, user_agent, ip, request_body::text, response_body::text, duration_ms, created_at`;
    const diff = await client.query(
      `SELECT count(*)::int AS n FROM ((SELECT ${cols} FROM request_logs WHERE id = ANY($1::uuid[]) EXCEPT SELECT ${cols} FROM logs_old)
       UNION ALL (SELECT ${cols} FROM logs_old EXCEPT SELECT ${cols} FROM request_logs WHERE id = ANY($1::uuid[]))) d`,
      [[row.id, noBody.id]],
    );
    assert.equal(diff.rows[0].n, 0);
    const nulls = await client.query(
      `SELECT request_body IS NULL AS a, response_body IS NULL AS b FROM request_logs WHERE id = $1`,
      [noBody.id],
    );
    assert.deepEqual(nulls.rows[0], { a: true, b: true });
  } finally {
    client.release();
  }
});
