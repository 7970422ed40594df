// Erasure of addresses that reached mail through lists (issue 29): two recipients of one broadcast
// erased (their copies stay, each recipient replaced by its own placeholder, the third recipient's
// copy untouched), a hard bounce (the bounce suppression and its diagnostic), and a contact
// import's failed row. Afterwards no column of any table names either address.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { nudgeDeliveries, startMailWorld, waitForLastEvent, type MailWorld } from '../helpers/mail-world.js';
import { until } from '../helpers/until.js';
import { PRIVACY_ERASE_JOB } from '../../src/store/jobs.js';

const CAT = 'cat@dest.test';
const DAN = 'dan@dest.test';
const EVE = 'eve@dest.test';

describe('privacy: erasure of broadcast recipients, a bounced address and an import row', () => {
  let w: MailWorld;
  before(async () => {
    w = await startMailWorld({ rateLimit: 1000 });
  });
  after(() => w.close());

  const erase = async (email: string) => {
    const start = await w.t.api('POST', '/privacy/erasures', { body: { email } });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    return until(
      `the erasure of ${email}`,
      async () => {
        const r = await w.t.api('GET', `/privacy/erasures/${start.body.id}`);
        assert.notEqual(r.body.status, 'failed', JSON.stringify(r.body));
        return r.body.status === 'completed' ? (r.body.counts as Record<string, number>) : undefined;
      },
      20_000,
    );
  };
  const mentions = async (addr: string) => {
    const { rows } = await w.t.db.pool.query<{ table_name: string; column_name: string; data_type: string }>(
      `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
       WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
         AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'bytea', 'ARRAY')`,
    );
    const hits: string[] = [];
    for (const c of rows) {
      const col = `"${c.column_name}"`;
      const expr =
        c.data_type === 'bytea'
          ? `encode(${col}, 'escape')`
          : c.data_type === 'ARRAY'
            ? `array_to_string(${col}, ' ')`
            : `${col}::text`;
      const q = await w.t.db.pool.query(`SELECT 1 FROM "${c.table_name}" WHERE ${expr} ILIKE $1 LIMIT 1`, [
        `%${addr}%`,
      ]);
      if (q.rowCount) hits.push(`${c.table_name}.${c.column_name}`);
    }
    return hits;
  };

  test('both erased; the broadcast keeps its third copy; the bounce and the import row are gone', async () => {
    const r = w.t.resend;
    const segment = (await r.segments.create({ name: 'All' })).data!.id;
    for (const email of [CAT, DAN, EVE]) {
      const c = await r.contacts.create({ email, segments: [{ id: segment }] } as never);
      assert.equal(c.error, null, JSON.stringify(c.error));
    }
    const b = await r.broadcasts.create({
      name: 'Monthly',
      segmentId: segment,
      from: 'News <news@example.com>',
      subject: 'Hello',
      html: '<p>News for {{{contact.email}}}</p>',
      send: true,
    });
    assert.equal(b.error, null, JSON.stringify(b.error));
    await w.mx.waitFor(3, 20_000);

    // A hard bounce of DAN whose reply names the address.
    w.mx.onRcpt = (a) => (a === DAN ? { code: 550, message: `5.1.1 <${DAN}>: no such user` } : undefined);
    const sent = await r.emails.send({ from: 'shop@example.com', to: [DAN], subject: 'Receipt', text: 'thanks' });
    assert.equal(sent.error, null);
    await waitForLastEvent(w.t, sent.data!.id, ['bounced']);
    w.mx.onRcpt = () => undefined;
    assert.equal((await r.suppressions.get(DAN)).data?.origin, 'bounce');

    // Mail to CAT and EVE whose delivery to EVE is deferred: still due when CAT is erased.
    w.mx.onRcpt = (a) => (a === EVE ? { code: 451, message: '4.2.0 try later' } : undefined);
    const pair = await r.emails.send({ from: 'shop@example.com', to: [CAT, EVE], subject: 'Both', text: 'hi' });
    assert.equal(pair.error, null);
    await until('the delivery to EVE deferred', async () => {
      const evs = (await w.t.api('GET', `/emails/${pair.data!.id}/events`)).body.data as { type: string }[];
      return evs.some((e) => e.type === 'email.delivery_delayed') && evs.some((e) => e.type === 'email.delivered');
    });
    w.mx.onRcpt = () => undefined;

    // An import whose failed row names CAT.
    const imp = await r.contacts.imports.create({
      file: new Blob([`email,unsubscribed\n${CAT},maybe\n`], { type: 'text/csv' }),
    } as never);
    assert.equal(imp.error, null, JSON.stringify(imp.error));
    await until('the import to end', async () => {
      const g = await r.contacts.imports.get(imp.data!.id);
      return g.data?.status === 'completed' ? g.data : undefined;
    });
    assert.ok((await mentions(CAT)).includes('contact_imports.failed_rows'));
    assert.ok((await mentions(DAN)).includes('suppressions.email'));

    const cat = await erase(CAT);
    assert.equal(cat.import_rows, 1);
    assert.equal(cat.emails_addressed, 2);
    assert.equal(cat.emails_content_removed, 1);
    const dan = await erase(DAN);
    assert.equal(dan.suppressions, 1);
    assert.equal(dan.emails_addressed, 2);

    await until('the erasure jobs to end', async () => {
      const q = await w.t.db.pool.query('SELECT 1 FROM jobs WHERE kind = $1', [PRIVACY_ERASE_JOB]);
      return q.rowCount === 0;
    });
    await w.t.app.requestLogs!.flush();
    assert.deepEqual(await mentions(CAT), []);
    assert.deepEqual(await mentions(DAN), []);

    const copies = await r.broadcasts.get(b.data!.id);
    assert.equal(copies.error, null);
    const { rows } = await w.t.db.pool.query<{ to_addrs: string[]; html: string | null }>(
      'SELECT to_addrs, html FROM emails WHERE broadcast_id = $1 ORDER BY to_addrs[1]',
      [b.data!.id],
    );
    const to = rows.map((x) => x.to_addrs[0]);
    assert.equal(to.length, 3);
    assert.ok(to.includes(EVE), "the third recipient's copy is untouched");
    const placeholders = to.filter((a) => a !== EVE);
    assert.equal(new Set(placeholders).size, 2, 'each erased recipient has its own placeholder');
    for (const p of placeholders) assert.match(p, /^erased-[0-9a-f]{16}@erased\.invalid$/);
    assert.equal((await r.contacts.get({ email: EVE } as never)).data?.email, EVE);

    // The delivery still due to EVE goes on after CAT's erasure, its To header without CAT.
    const before = w.mx.messages.length;
    await nudgeDeliveries(w.t);
    await waitForLastEvent(w.t, pair.data!.id, ['delivered']);
    const late = w.mx.messages.slice(before).find((m) => m.rcptTo.includes(EVE));
    assert.ok(late, 'delivered to EVE');
    const head = late.raw.toString('latin1').split('\r\n\r\n')[0];
    assert.match(head, /^To: erased-[0-9a-f]{16}@erased\.invalid, eve@dest\.test$/im);
    assert.doesNotMatch(head, /cat@dest\.test/i);
  });
});
