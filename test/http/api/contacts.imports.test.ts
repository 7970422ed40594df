// Contact imports through the real SDK (resend.contacts.imports.*) and fetch + FormData where the
// SDK cannot say it: happy path, upsert vs skip, failed rows, malformed files, the size limit,
// listing, route order, no contact.created events, and a worker killed mid-import.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Resend } from 'resend';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { freshDatabase } from '../../helpers/db.js';
import { sleep } from '../../../src/lib/time.js';
import { closeAll } from '../../helpers/close-all.js';
import { mailroomEntry } from '../../helpers/cli.js';

import { ROOT } from '../../helpers/root.js';
const csv = (text: string | Buffer) =>
  new Blob([typeof text === 'string' ? text : new Uint8Array(text)], { type: 'text/csv' });

/** Polls the import until it ends (bounded). */
async function ended(resend: Resend, id: string, timeoutMs = 60_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await resend.contacts.imports.get(id);
    assert.equal(got.error, null, JSON.stringify(got.error));
    if (got.data!.status === 'completed' || got.data!.status === 'failed') return got.data;
    if (Date.now() > deadline) assert.fail(`import ${id} still ${got.data!.status}`);
    await sleep(50);
  }
}

async function importCsv(t: TestApp, text: string | Buffer, opts: Record<string, unknown> = {}) {
  const res = await t.resend.contacts.imports.create({ file: csv(text), ...opts } as never);
  assert.equal(res.error, null, JSON.stringify(res.error));
  assert.equal(res.data!.object, 'contact_import');
  return ended(t.resend, res.data!.id);
}

const contactCount = async (t: TestApp) =>
  Number((await t.db.pool.query('SELECT count(*) FROM contacts')).rows[0].count);

describe('contact imports', () => {
  let t: TestApp;
  let vip: string;
  let news: string;
  before(async () => {
    t = await startTestApp();
    for (const p of [
      { key: 'plan', type: 'string' },
      { key: 'seats', type: 'number' },
    ])
      assert.equal((await t.resend.contactProperties.create(p as never)).error, null);
    vip = (await t.resend.segments.create({ name: 'VIP' })).data!.id;
    news = (await t.resend.topics.create({ name: 'News', defaultSubscription: 'opt_out' } as never)).data!.id;
  });
  after(async () => {
    await t.close();
  });

  test('imports names, unsubscribed and properties, joins the segment and topic, and records no contact.created event', async () => {
    const file =
      'Email,First,Last,Unsub,Plan,Seats\nAda@Example.org,Ada,Lovelace,no,pro,3\nbob@example.org,Bob,,yes,,\n"cy@example.org","Cy, Jr.",Young,,free,12.5\n';
    const imp = await importCsv(t, file, {
      columnMap: {
        email: 'Email',
        firstName: 'First',
        lastName: 'Last',
        unsubscribed: 'Unsub',
        properties: { plan: { column: 'Plan' }, seats: { column: 'Seats', type: 'number' } },
      },
      segments: [{ id: vip }],
      topics: [{ id: news, subscription: 'opt_in' }],
    });
    assert.equal(imp.status, 'completed', imp.error);
    assert.deepEqual(imp.counts, { total: 3, created: 3, updated: 0, skipped: 0, failed: 0 });
    assert.match(imp.completed_at, /^\d{4}-\d\d-\d\d /);
    const ada = (await t.resend.contacts.get({ email: 'ada@example.org' })).data as any;
    assert.deepEqual([ada.first_name, ada.last_name, ada.unsubscribed], ['Ada', 'Lovelace', false]);
    assert.deepEqual(ada.properties, { plan: { type: 'string', value: 'pro' }, seats: { type: 'number', value: 3 } });
    const bob = (await t.resend.contacts.get({ email: 'bob@example.org' })).data as any;
    assert.deepEqual([bob.first_name, bob.last_name, bob.unsubscribed, bob.properties], ['Bob', null, true, {}]);
    const cy = (await t.resend.contacts.get({ email: 'cy@example.org' })).data as any;
    assert.deepEqual([cy.first_name, cy.properties.seats.value], ['Cy, Jr.', 12.5]);
    const members = await t.resend.contacts.list({ segmentId: vip });
    assert.equal(members.error, null, JSON.stringify(members.error));
    const emails = members.data!.data.map((c) => c.email).sort();
    assert.deepEqual(emails, ['ada@example.org', 'bob@example.org', 'cy@example.org']);
    const topics = await t.api('GET', '/contacts/ada@example.org/topics');
    assert.deepEqual(
      topics.body.data.map((x: any) => [x.id, x.subscription]),
      [[news, 'opt_in']],
    );
    const events = await t.db.pool.query("SELECT count(*)::int AS n FROM email_events WHERE type LIKE 'contact.%'");
    assert.equal(events.rows[0].n, 0, 'an import records no contact.* events');
  });

  test('without a column map, columns are found by their names (and property keys)', async () => {
    const imp = await importCsv(t, 'first_name,EMAIL,plan,notes\nDan,dan@example.org,team,ignored\n');
    assert.deepEqual(imp.counts, { total: 1, created: 1, updated: 0, skipped: 0, failed: 0 });
    const dan = (await t.resend.contacts.get({ email: 'dan@example.org' })).data as any;
    assert.deepEqual([dan.first_name, dan.properties.plan?.value], ['Dan', 'team']);
  });

  test('skip leaves existing contacts alone, upsert updates them; a duplicate address counts once and its last row wins', async () => {
    await t.resend.contacts.create({
      email: 'eve@example.org',
      firstName: 'Eve',
      lastName: 'Old',
      properties: { plan: 'free' },
    } as never);
    const file =
      'email,first_name,last_name,plan\neve@example.org,Evelyn,,pro\nfay@example.org,Fay,,\nFAY@example.org,Faye,,\n';
    const skip = await importCsv(t, file);
    assert.deepEqual(skip.counts, { total: 3, created: 1, updated: 0, skipped: 2, failed: 0 });
    assert.equal(((await t.resend.contacts.get({ email: 'eve@example.org' })).data as any).first_name, 'Eve');
    assert.equal(((await t.resend.contacts.get({ email: 'fay@example.org' })).data as any).first_name, 'Faye');
    const upsert = await importCsv(t, file, { onConflict: 'upsert' });
    assert.deepEqual(upsert.counts, { total: 3, created: 0, updated: 2, skipped: 1, failed: 0 });
    const eve = (await t.resend.contacts.get({ email: 'eve@example.org' })).data as any;
    assert.deepEqual(
      [eve.first_name, eve.last_name, eve.properties.plan.value],
      ['Evelyn', 'Old', 'pro'],
      "empty cells keep the contact's values",
    );
  });

  test('rows with a bad value fail with their reason; the other rows are imported', async () => {
    const before = await contactCount(t);
    const file = [
      'email,first_name,seats,unsubscribed',
      'good1@example.org,G,1,',
      'not-an-address,X,1,',
      ',NoEmail,1,',
      'bad-seats@example.org,S,lots,',
      'bad-unsub@example.org,U,1,maybe',
      `long@example.org,${'n'.repeat(300)},1,`,
      'good2@example.org,G,2,false',
    ].join('\r\n');
    const imp = await importCsv(t, file);
    assert.equal(imp.status, 'completed');
    assert.deepEqual(imp.counts, { total: 7, created: 2, updated: 0, skipped: 0, failed: 5 });
    assert.deepEqual(
      imp.failed_rows.map((r: any) => [r.row, r.email]),
      [
        [3, 'not-an-address'],
        [4, null],
        [5, 'bad-seats@example.org'],
        [6, 'bad-unsub@example.org'],
        [7, 'long@example.org'],
      ],
    );
    const reasons = imp.failed_rows.map((r: any) => r.reason);
    assert.match(reasons[0], /email/);
    assert.match(reasons[1], /no email address/);
    assert.match(reasons[2], /"seats" is a number; got "lots"/);
    assert.match(reasons[3], /unsubscribed.*true or false/);
    assert.match(reasons[4], /first_name.*256/);
    assert.equal(await contactCount(t), before + 2);
  });

  test('failed_rows and a file error number rows alike, as a spreadsheet shows them: the header is row 1 and blank lines count', async () => {
    const blank = await importCsv(
      t,
      'email,first_name,notes\n\nbad-address,X,\n\ntwo@example.org,T,"two\nlines"\n,NoEmail,\n',
    );
    assert.deepEqual(
      blank.failed_rows.map((r: any) => r.row),
      [3, 6],
      'a quoted line break stays in one row; blank rows 2 and 4 count',
    );
    const raggedAfterBlank = await importCsv(t, 'email,first_name\n\nbad-address,X\n\nshort@example.org\n');
    assert.match(raggedAfterBlank.error, /row 5 has 1 columns/);
    // Far past the first chunk: the parser reads ahead of the rows already checked.
    const many = Array.from({ length: 5000 }, (_, i) => `far${i}@example.org,F`).join('\n');
    const raggedFar = await importCsv(t, `email,first_name\n${many}\nshort@example.org\n`);
    assert.match(raggedFar.error, /row 5002 has 1 columns/);
    const unclosedFar = await importCsv(t, `email,first_name\n${many}\n"open@example.org,Oops\nlast@example.org,L\n`);
    assert.match(unclosedFar.error, /quoted field opened in row 5002 is never closed/);
  });

  test('a malformed file fails the whole import with its reason and imports no row of it', async () => {
    const before = await contactCount(t);
    const good = Array.from({ length: 20 }, (_, i) => `m${i}@example.org,M`).join('\n');
    const cases: [string, string | Buffer, RegExp][] = [
      [
        'unclosed quote',
        `email,first_name\n${good}\n"open@example.org,Oops\nlast@example.org,L\n`,
        /quoted field opened in row 22 is never closed/,
      ],
      [
        'wrong column count',
        `email,first_name\n${good}\nshort@example.org\n`,
        /row 22 has 1 columns, the header has 2/,
      ],
      [
        'not UTF-8',
        Buffer.concat([Buffer.from(`email,first_name\n${good}\nlatin@example.org,`), Buffer.from([0xe9, 0x0a])]),
        /not UTF-8/,
      ],
      ['no email column', 'name,plan\nAnn,pro\n', /no email column/],
      ['empty file', '', /empty/],
      ['header only', 'email,first_name\n', /no contacts/],
    ];
    for (const [what, file, reason] of cases) {
      const imp = await importCsv(t, file);
      assert.equal(imp.status, 'failed', what);
      assert.match(imp.error, reason, what);
      assert.equal(imp.counts.created, 0, what);
      assert.ok(imp.completed_at, what);
    }
    const wrongMap = await importCsv(t, 'Mail\na@example.org\n', { columnMap: { email: 'E-mail' } });
    assert.match(wrongMap.error, /no column "E-mail" \(column_map\.email\)/);
    assert.equal(await contactCount(t), before, 'no contact from a failed import');
    const staging = await t.db.pool.query('SELECT count(*)::int AS n FROM contact_import_rows');
    assert.equal(staging.rows[0].n, 0, 'no staging rows left behind');
  });

  test('a file over 50 MB is refused (413) and nothing of it is kept', async () => {
    const chunksBefore = (await t.db.pool.query('SELECT count(*)::int AS n FROM blob_chunks')).rows[0].n;
    const importsBefore = (await t.db.pool.query('SELECT count(*)::int AS n FROM contact_imports')).rows[0].n;
    const big = Buffer.alloc(50 * 1024 * 1024 + 1, 'a');
    const res = await t.resend.contacts.imports.create({ file: csv(big) });
    assert.equal(res.error?.name, 'validation_error');
    assert.equal(res.error?.statusCode, 413);
    assert.match(res.error!.message, /larger than 50 MB/);
    assert.equal((await t.db.pool.query('SELECT count(*)::int AS n FROM blob_chunks')).rows[0].n, chunksBefore);
    assert.equal((await t.db.pool.query('SELECT count(*)::int AS n FROM contact_imports')).rows[0].n, importsBefore);
  });

  test('bad options are refused at upload with the field named', async () => {
    const file = csv('email\na@example.org\n');
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ onConflict: 'merge' }, /`on_conflict`/],
      [
        { columnMap: { email: 'email', properties: { missing: { column: 'x' } } } },
        /property "missing" does not exist/,
      ],
      [{ columnMap: { properties: { seats: { column: 'seats', type: 'boolean' } } } }, /boolean/],
      [{ columnMap: { properties: { seats: { column: 'seats', type: 'string' } } } }, /is a number/],
      [{ segments: [{ id: '00000000-0000-4000-8000-000000000000' }] }, /no segment has the id/],
      [{ topics: [{ id: news, subscription: 'sometimes' }] }, /subscription/],
    ];
    for (const [opts, message] of cases) {
      const res = await t.resend.contacts.imports.create({ file, ...opts } as never);
      assert.equal(res.error?.name, 'validation_error', JSON.stringify(opts));
      assert.match(res.error!.message, message);
    }
    const noFile = new FormData();
    noFile.append('on_conflict', 'skip');
    const r1 = await fetch(`${t.url}/contacts/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}` },
      body: noFile,
    });
    assert.deepEqual([r1.status, (await r1.json()).message], [422, 'Missing `file` field.']);
    const json = await t.api('POST', '/contacts/imports', { body: { file: 'email\na@b.co' } });
    assert.equal(json.status, 400);
    assert.match(json.body.message, /multipart\/form-data/);
    const bad = new FormData();
    bad.append('file', csv('email\n'));
    bad.append('column_map', '{not json');
    const r2 = await fetch(`${t.url}/contacts/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}` },
      body: bad,
    });
    assert.match((await r2.json()).message, /`column_map`.*JSON/);
    const unauth = await fetch(`${t.url}/contacts/imports`, { method: 'POST', body: noFile });
    assert.equal(unauth.status, 401);
    const elsewhere = await fetch(`${t.url}/contacts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${t.key}` },
      body: noFile,
    });
    assert.equal(elsewhere.status, 400, 'other routes still refuse multipart bodies');
    assert.match((await elsewhere.json()).message, /Unsupported Content-Type/);
  });

  test('GET /contacts/imports is the list (never a contact lookup), filtered by status and paginated', async () => {
    const all = await t.resend.contacts.imports.list();
    assert.equal(all.error, null, JSON.stringify(all.error));
    assert.equal(all.data!.object, 'list');
    assert.ok(all.data!.data.length >= 10);
    assert.ok(all.data!.data.every((i) => i.object === 'contact_import' && !('failed_rows' in i)));
    const failed = await t.resend.contacts.imports.list({ status: 'failed' });
    assert.ok(failed.data!.data.length >= 7 && failed.data!.data.every((i) => i.status === 'failed'));
    const completed = await t.resend.contacts.imports.list({ status: 'completed', limit: 2 });
    assert.deepEqual([completed.data!.data.length, completed.data!.has_more], [2, true]);
    const next = await t.resend.contacts.imports.list({
      status: 'completed',
      limit: 2,
      after: completed.data!.data[1].id,
    });
    assert.ok(
      next.data!.data.every((i) => i.status === 'completed' && !completed.data!.data.some((c) => c.id === i.id)),
    );
    assert.equal((await t.api('GET', '/contacts/imports?status=done')).status, 422);
    const unknown = await t.resend.contacts.imports.get('00000000-0000-4000-8000-000000000000');
    assert.deepEqual([unknown.error?.name, unknown.error?.message], ['not_found', 'Contact import not found']);
    assert.equal((await t.api('GET', '/contacts/imports/')).body.object, 'list');
    assert.equal(
      (await t.api('GET', '/contacts/not-an-address')).body.message,
      'Contact not found',
      'other paths still reach /contacts/:id',
    );
    const doc = await t.api('GET', '/openapi.json', { key: null });
    assert.ok(doc.body.paths['/contacts/imports'].post.requestBody.content['multipart/form-data']);
    assert.ok(doc.body.paths['/contacts/imports/{id}'].get);
  });
});

describe('contact imports and their worker', () => {
  test('a property deleted between upload and run fails the rows that give it a value; queued imports are listed as queued', async () => {
    const db = await freshDatabase();
    const api = await startTestApp({ roles: ['api'] }, { db });
    try {
      await api.resend.contactProperties.create({ key: 'tier', type: 'string' } as never);
      const prop = (await api.resend.contactProperties.list()).data!.data[0].id;
      const created = await api.resend.contacts.imports.create({
        file: csv('email,tier\na@example.org,gold\nb@example.org,\n'),
        columnMap: { properties: { tier: { column: 'tier' } } },
      });
      assert.equal(created.error, null, JSON.stringify(created.error));
      const queued = await api.resend.contacts.imports.list({ status: 'queued' });
      assert.deepEqual(
        queued.data!.data.map((i) => i.id),
        [created.data!.id],
      );
      await api.resend.contactProperties.remove(prop);
      const worker = await startTestApp({ roles: ['worker'] }, { db });
      try {
        const imp = await ended(api.resend, created.data!.id);
        assert.deepEqual(imp.counts, { total: 2, created: 1, updated: 0, skipped: 0, failed: 1 });
        assert.match(imp.failed_rows[0].reason, /property "tier" does not exist/);
      } finally {
        await worker.close();
      }
    } finally {
      await closeAll(
        () => api.close(),
        () => db.drop(),
      );
    }
  });

  test('a worker killed (kill -9) in the middle of a 60,000-row import: a new worker imports each contact exactly once', async () => {
    const db = await freshDatabase();
    const api = await startTestApp({ roles: ['api'] }, { db });
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-import-kill-'));
    try {
      const rows = 60_000;
      const lines = ['email,first_name,last_name'];
      for (let i = 0; i < rows; i++) lines.push(`user${i}@example.org,First${i},Last${i}`);
      lines.push('user5@example.org,Again,Dup'); // a duplicate: counted once
      const created = await api.resend.contacts.imports.create({ file: csv(lines.join('\n')) });
      assert.equal(created.error, null, JSON.stringify(created.error));
      const id = created.data!.id;
      const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH!,
          HOME: process.env.HOME!,
          MAILROOM_DATABASE_URL: db.url,
          MAILROOM_ROLES: 'worker',
          MAILROOM_DATA_DIR: dataDir,
          MAILROOM_SECRET_KEY: `test-secret:${db.url}`,
        },
      });
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      let out = '';
      child.stdout!.on('data', (d) => {
        if (out.length < 50_000) out += d;
      });
      child.stderr!.on('data', (d) => {
        if (out.length < 50_000) out += d;
      });
      let seen: any;
      try {
        for (let i = 0; i < 1500; i++) {
          // up to ~30 s for tsx to start and the run to stage a batch
          seen = (await api.resend.contacts.imports.get(id)).data;
          if (seen.status !== 'queued' && seen.counts.total > 0) break;
          await sleep(20);
        }
      } finally {
        child.kill('SIGKILL');
        await exited;
      }
      assert.equal(
        seen.status,
        'in_progress',
        `the import should be running at the kill: ${JSON.stringify(seen)}\n${out}`,
      );
      assert.ok(seen.counts.total > 0 && seen.counts.total < rows, `progress is visible: ${seen.counts.total}`);
      assert.equal(await contactCount(api), 0, "no contact is visible before the import's one transaction");
      // The dead worker's lease would expire after 60 s; expire it now (test/queue covers expiry itself).
      await db.pool.query("UPDATE jobs SET locked_until = now() - interval '1 second' WHERE locked_by IS NOT NULL");
      const worker = await startTestApp({ roles: ['worker'] }, { db });
      try {
        // Seen once in CI (never alone): the import still in_progress after 120 s. On a failure the
        // message carries the job rows and the database's sessions, to tell a stuck job from a lock.
        const imp = await ended(api.resend, id, 120_000).catch(async (err: Error) => {
          const jobs = await db.pool.query(
            `SELECT kind, state, attempts, max_attempts, locked_by, locked_until, run_at, last_error FROM jobs WHERE kind LIKE 'contacts.%'`,
          );
          const sessions = await db.pool.query(
            `SELECT pid, state, wait_event_type, wait_event, now() - xact_start AS xact_age, left(query, 200) AS query
             FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
          );
          throw new Error(
            `${err.message}\njobs: ${JSON.stringify(jobs.rows)}\nsessions: ${JSON.stringify(sessions.rows)}`,
          );
        });
        assert.equal(imp.status, 'completed', imp.error);
        assert.deepEqual(imp.counts, { total: rows + 1, created: rows, updated: 0, skipped: 1, failed: 0 });
      } finally {
        await worker.close();
      }
      const {
        rows: [c],
      } = await db.pool.query('SELECT count(*)::int AS n, count(DISTINCT email)::int AS d FROM contacts');
      assert.deepEqual([c.n, c.d], [rows, rows]);
      assert.equal(
        (await db.pool.query("SELECT first_name FROM contacts WHERE email = 'user5@example.org'")).rows[0].first_name,
        'Again',
      );
      assert.equal((await db.pool.query('SELECT count(*)::int AS n FROM contact_import_rows')).rows[0].n, 0);
      assert.equal(
        (await db.pool.query('SELECT count(*)::int AS n FROM blob_chunks')).rows[0].n,
        0,
        'the file is dropped once imported',
      );
    } finally {
      await closeAll(
        () => api.close(),
        () => db.drop(),
        () => fs.rmSync(dataDir, { recursive: true, force: true }),
      );
    }
  });
});
