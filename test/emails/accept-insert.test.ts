// The accept statement (store/emails.ts emailsInsertAccepted) sends every body of a group in one
// bytea parameter cut by offset and length: each email must get exactly its own message, whatever
// the sizes and characters of its neighbours, through a batch and through concurrent single sends
// (which share one statement).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../helpers/harness.js';

describe('accepted emails keep their own raw message', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
    const dom = await t.api('POST', '/domains', { body: { name: 'example.com' } });
    await t.api('POST', `/domains/${dom.body.id}/verify`);
  });
  after(async () => {
    await t.close();
  });

  /** Emails whose bodies differ in length and characters (ASCII, two- and four-byte UTF-8, empty html). */
  const emails = (tag: string) =>
    Array.from({ length: 7 }, (_, i) => ({
      from: 'a@example.com',
      to: `r${i}@example.org`,
      subject: `${tag} number ${i}`,
      ...(i === 3 ? { text: `plain ${tag} ${i}` } : { html: `<p>${tag}-${i} ${'é€😀x'.repeat(i * 700)}</p>` }),
    }));

  async function checkRaw(ids: string[], tag: string) {
    const { rows } = await t.db.pool.query(
      'SELECT id, subject, raw, octet_length(raw) AS n FROM emails WHERE id = ANY($1::uuid[])',
      [ids],
    );
    assert.equal(rows.length, ids.length);
    for (const r of rows) {
      const i = Number(/number (\d+)$/.exec(r.subject)![1]);
      const raw = (r.raw as Buffer).toString('latin1');
      assert.match(raw, new RegExp(`^[\\s\\S]*Subject: ${tag} number ${i}\\r\\n`), `${r.id}: its own Subject`);
      assert.match(raw, /\r\n\r\n/, 'a whole message: headers and body');
      if (i === 3) assert.ok(raw.endsWith(`\r\n\r\nplain ${tag} 3`), `${r.id}: its text, whole`);
      else {
        const boundary = /boundary="([^"]+)"/.exec(raw)?.[1];
        assert.ok(boundary, `${r.id}: multipart`);
        assert.ok(raw.endsWith(`--${boundary}--\r\n`), `${r.id}: not cut short`);
        assert.equal(raw.split(boundary).length, 5, `${r.id}: one header and three boundary lines, nothing else`);
      }
      const other = [0, 1, 2, 3, 4, 5, 6].filter((j) => j !== i).find((j) => raw.includes(`${tag} number ${j}`));
      assert.equal(other, undefined, 'no neighbour in it');
      assert.ok(Number(r.n) > 0);
    }
  }

  test('a batch: each email its own message', async () => {
    const res = await t.api('POST', '/emails/batch', { body: emails('batch') });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    await checkRaw(
      res.body.data.map((d: { id: string }) => d.id),
      'batch',
    );
  });

  test('concurrent single sends sharing a statement: each email its own message', async () => {
    const sent = await Promise.all(emails('single').map((e) => t.api('POST', '/emails', { body: e })));
    for (const s of sent) assert.equal(s.status, 200, JSON.stringify(s.body));
    await checkRaw(
      sent.map((s) => s.body.id),
      'single',
    );
  });
});
