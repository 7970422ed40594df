// Data-subject requests end to end (issue 29): one address taken through sending (real SMTP to a
// recording MX), an open and a click, a contact with properties, a segment and a topic, a custom
// event and the automation run it starts, an inbound email from it, webhooks and request logs;
// the export holds each of those; the erasure leaves no trace of it in any column of any table
// or in the data directory (only its keyed hash), and a later send to it is held. Another team's
// erasure of the same address touches nothing of this team's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { waitForLastEvent } from '../helpers/mail-world.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { until } from '../helpers/until.js';
import { closeAll } from '../helpers/close-all.js';
import { teamCreate } from '../../src/store/teams.js';
import { AddressHasher } from '../../src/lib/address-hash.js';
import { PRIVACY_ERASE_JOB, PRIVACY_EXPORT_JOB } from '../../src/store/jobs.js';

const ADDR = 'ann.subject@dest.test';
const OTHER = 'bob.other@dest.test';

const compose = (opts: Record<string, unknown>) => new MailComposer(opts as never).compile().build();

/** Every text-like column of every table: [table, column, data_type]. */
async function textColumns(w: InboundWorld): Promise<[string, string, string][]> {
  const { rows } = await w.t.db.pool.query<{ table_name: string; column_name: string; data_type: string }>(
    `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'
       AND c.data_type IN ('text', 'character varying', 'jsonb', 'json', 'bytea', 'ARRAY')`,
  );
  return rows.map((r) => [r.table_name, r.column_name, r.data_type]);
}

/** Where the address (or its percent-encoded form) still appears: "table.column: n" for each hit. */
async function traces(w: InboundWorld, addr: string): Promise<string[]> {
  const hits: string[] = [];
  const forms = [addr, addr.replace('@', '%40')];
  for (const [table, column, type] of await textColumns(w)) {
    const expr =
      type === 'bytea'
        ? `encode("${column}", 'escape')`
        : type === 'ARRAY'
          ? `array_to_string("${column}", ' ')`
          : `"${column}"::text`;
    const { rows } = await w.t.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM "${table}" WHERE ${expr} ILIKE ANY($1::text[])`,
      [forms.map((f) => `%${f}%`)],
    );
    if (rows[0].n) hits.push(`${table}.${column}: ${rows[0].n}`);
  }
  return hits;
}

function filesContaining(dir: string, needle: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return filesContaining(p, needle);
    return fs.readFileSync(p).toString('latin1').toLowerCase().includes(needle) ? [p] : [];
  });
}

describe('privacy: export and erasure of one address', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  let keyB: string;
  let teamB: string;
  const ids = { contact: '', only: '', mixed: '', received: '', automation: '', segment: '', topic: '' };

  const api = (method: string, url: string, opts: Parameters<InboundWorld['t']['api']>[2] = {}) =>
    w.t.api(method, url, opts);
  const waitRequest = async (kind: 'erasures' | 'exports', id: string, key?: string) =>
    until(
      `the ${kind} request to complete`,
      async () => {
        const r = await api('GET', `/privacy/${kind}/${id}`, { key });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.notEqual(r.body.status, 'failed', JSON.stringify(r.body));
        const job = await w.t.db.pool.query(
          "SELECT last_error FROM jobs WHERE kind LIKE 'privacy.%' AND last_error IS NOT NULL",
        );
        assert.equal(job.rowCount, 0, job.rows[0]?.last_error);
        return r.body.status === 'completed' ? r.body : undefined;
      },
      20_000,
    );

  before(async () => {
    w = await startInboundWorld({ rateLimit: 1000 });
    rcv = await startReceiver();
    const hook = await w.t.resend.webhooks.create({
      endpoint: rcv.url,
      events: ['email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'contact.created', 'contact.deleted'],
    });
    assert.equal(hook.error, null, JSON.stringify(hook.error));
    const d = await api('PATCH', `/domains/${w.domainId}`, { body: { open_tracking: true, click_tracking: true } });
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const team = await teamCreate(w.t.db.pool, 'Team B');
    teamB = team.id;
    keyB = (await w.t.app.apiKeys.create(team.id, { name: 'b' })).token;
  });
  after(() =>
    closeAll(
      () => rcv.close(),
      () => w.close(),
    ),
  );

  test('the address is taken through every feature', async () => {
    const r = w.t.resend;
    assert.equal((await r.contactProperties.create({ key: 'city', type: 'string' })).error, null);
    ids.segment = (await r.segments.create({ name: 'VIP' })).data!.id;
    ids.topic = (await r.topics.create({ name: 'News', defaultSubscription: 'opt_in' })).data!.id;
    const c = await r.contacts.create({
      email: ADDR,
      firstName: 'Ann',
      lastName: 'Subject',
      properties: { city: 'Oslo' },
      segments: [{ id: ids.segment }],
    } as never);
    assert.equal(c.error, null, JSON.stringify(c.error));
    ids.contact = c.data!.id;
    const t = await r.contacts.topics.update({ id: ids.contact, topics: [{ id: ids.topic, subscription: 'opt_out' }] });
    assert.equal(t.error, null, JSON.stringify(t.error));
    assert.equal((await r.contacts.create({ email: OTHER })).error, null);

    const auto = await r.automations.create({
      name: 'After an order',
      status: 'enabled',
      steps: [
        { key: 't', type: 'trigger', config: { eventName: 'order.placed' } },
        { key: 'wait', type: 'delay', config: { duration: '2 days' } },
      ],
      connections: [{ from: 't', to: 'wait' }],
    } as never);
    assert.equal(auto.error, null, JSON.stringify(auto.error));
    ids.automation = auto.data!.id;
    const ev = await r.events.send({ event: 'order.placed', email: ADDR, payload: { order: 42, note: `for ${ADDR}` } });
    assert.equal(ev.error, null, JSON.stringify(ev.error));
    await until('the automation run', async () => {
      const runs = await r.automations.runs.list({ automationId: ids.automation });
      return runs.data?.data.length ? true : undefined;
    });

    const only = await r.emails.send({
      from: 'Shop <shop@example.com>',
      to: [ADDR],
      subject: `Your order, ${ADDR}`,
      html: `<p>Hello Ann (${ADDR}), <a href="https://shop.test/orders/42">your order</a></p>`,
      attachments: [{ filename: 'receipt.txt', content: Buffer.from(`receipt for ${ADDR}`) }],
    });
    assert.equal(only.error, null, JSON.stringify(only.error));
    ids.only = only.data!.id;
    const mixed = await r.emails.send({
      from: 'Shop <shop@example.com>',
      to: [ADDR, OTHER],
      subject: 'Team news',
      html: '<p>News for everyone</p>',
    });
    assert.equal(mixed.error, null);
    ids.mixed = mixed.data!.id;
    await waitForLastEvent(w.t, ids.only, ['delivered']);
    await waitForLastEvent(w.t, ids.mixed, ['delivered']);
    assert.ok(
      w.mx.messages.some((m) => m.rcptTo.includes(ADDR)),
      'the recording MX received mail for it',
    );

    // An open and a click, from the links in the message as sent.
    const { rows } = await w.t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [ids.only]);
    const html = (await simpleParser(rows[0].raw)).html as string;
    const pixel = /src="([^"]+\/t\/o\/[^"]+)"/.exec(html)![1];
    const link = /href="([^"]+\/t\/c\/[^"]+)"/.exec(html)![1];
    assert.equal((await fetch(pixel, { headers: { 'user-agent': 'AnnMail/1.0' } })).status, 200);
    const click = await fetch(link, { redirect: 'manual', headers: { 'user-agent': 'AnnBrowser/2.0' } });
    assert.equal(click.status, 302);
    await waitForLastEvent(w.t, ids.only, ['clicked']);
    await until('the open', async () => {
      const evs = (await api('GET', `/emails/${ids.only}/events`)).body.data as { type: string }[];
      return evs.some((e) => e.type === 'email.opened');
    });

    // Mail from it to the team's receiving domain, over SMTP to the MX listener.
    const raw = await compose({
      from: `Ann <${ADDR}>`,
      to: 'support@inbound.test',
      subject: 'A question from Ann',
      text: `Please write back to ${ADDR}.`,
    });
    const { response } = await w.deliver(raw, { from: ADDR, to: ['support@inbound.test'] }, { sign: false });
    ids.received = /queued as ([0-9a-f-]{36})/.exec(response)![1];

    // On the suppression list too (after the sends: it holds mail to it).
    assert.equal((await api('POST', '/suppressions', { body: { email: ADDR } })).status, 201);

    // The request log names it in a path; webhooks carried it.
    assert.equal((await api('GET', `/contacts/${encodeURIComponent(ADDR)}`)).status, 200);
    await until('webhook payloads naming it', async () => rcv.received.some((x) => x.body.includes(ADDR)));
    await until('webhook attempts logged', async () => {
      const n = await w.t.db.pool.query('SELECT 1 FROM webhook_attempts WHERE request_body ILIKE $1', [`%${ADDR}%`]);
      return (n.rowCount ?? 0) > 0;
    });
    await w.t.app.requestLogs!.flush();
    const before = await traces(w, ADDR);
    for (const table of [
      'contacts',
      'emails',
      'email_events',
      'custom_events',
      'automation_runs',
      'received_emails',
      'request_logs',
      'webhook_attempts',
    ])
      assert.ok(
        before.some((h) => h.startsWith(`${table}.`)),
        `${table} holds it before: ${before.join(', ')}`,
      );

    // Team B knows the same address.
    const b = await api('POST', '/contacts', { key: keyB, body: { email: ADDR, first_name: 'Ann B' } });
    assert.equal(b.status, 201, JSON.stringify(b.body));
  });

  test('the export holds each kind of data, behind a signed link that expires', async () => {
    const start = await api('POST', '/privacy/exports', { body: { email: ADDR.toUpperCase() } });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    assert.equal(start.body.object, 'privacy_export');
    const done = await waitRequest('exports', start.body.id);
    assert.match(done.download_url, /\/privacy\/exports\/[0-9a-f-]+\/download\?expires=\d+&signature=/);
    assert.ok(Date.parse(done.expires_at) > Date.now());
    const res = await fetch(done.download_url);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /application\/json/);
    assert.equal(res.headers.get('ratelimit-limit'), '1000', 'limited per client address');
    const doc = (await res.json()) as Record<string, any>;
    assert.equal(doc.email, ADDR);
    assert.equal(doc.contact.id, ids.contact);
    assert.deepEqual(doc.contact.properties, { city: 'Oslo' });
    assert.deepEqual(
      doc.contact.segments.map((s: { id: string }) => s.id),
      [ids.segment],
    );
    assert.deepEqual(
      doc.contact.topics.map((t: { id: string; subscription: string }) => [t.id, t.subscription]),
      [[ids.topic, 'opt_out']],
    );
    const emails = new Map(doc.emails.map((e: { id: string }) => [e.id, e]));
    assert.match((emails.get(ids.only) as { html: string }).html, /your order/);
    assert.ok(emails.has(ids.mixed));
    const types = doc.events.map((e: { type: string }) => e.type);
    for (const t of ['email.sent', 'email.delivered', 'email.opened', 'email.clicked', 'contact.created'])
      assert.ok(types.includes(t), `${t} in ${types}`);
    const open = doc.tracking.find((e: { type: string }) => e.type === 'email.opened');
    assert.equal(open.data.open.userAgent, 'AnnMail/1.0');
    const clicked = doc.tracking.find((e: { type: string }) => e.type === 'email.clicked');
    assert.equal(clicked.data.click.link, 'https://shop.test/orders/42');
    assert.deepEqual(
      doc.received_emails.map((m: { id: string; subject: string }) => [m.id, m.subject]),
      [[ids.received, 'A question from Ann']],
    );
    assert.equal(doc.automation_runs.length, 1);
    assert.equal(doc.automation_runs[0].automation_id, ids.automation);
    assert.deepEqual(
      doc.custom_events.map((e: { name: string; payload: { order: number } }) => [e.name, e.payload.order]),
      [['order.placed', 42]],
    );
    assert.equal(doc.contact.first_name, 'Ann', "team A's contact, not team B's");
    assert.equal(doc.suppression.origin, 'manual');

    // The link is the credential: altered or expired, it is a 404; another team cannot read the request.
    const bad = new URL(done.download_url);
    bad.searchParams.set('signature', `${bad.searchParams.get('signature')!.slice(0, -2)}xx`);
    assert.equal((await fetch(bad)).status, 404);
    const old = new URL(done.download_url);
    old.searchParams.set('expires', String(Math.floor(Date.now() / 1000) - 10));
    assert.equal((await fetch(old)).status, 404);
    assert.equal((await api('GET', `/privacy/exports/${start.body.id}`, { key: keyB })).status, 404);
  });

  test('requests are for full-access keys, with a valid address; an unknown id is a 404', async () => {
    const sending = await w.t.resend.apiKeys.create({ name: 'send only', permission: 'sending_access' });
    const k = sending.data!.token;
    for (const p of ['/privacy/erasures', '/privacy/exports']) {
      const r = await api('POST', p, { key: k, body: { email: ADDR } });
      assert.equal(r.status, 401, JSON.stringify(r.body));
      assert.equal(r.body.name, 'restricted_api_key');
      assert.equal((await api('POST', p, { key: null, body: { email: ADDR } })).status, 401);
      const bad = await api('POST', p, { body: { email: 'not an address' } });
      assert.equal(bad.status, 422, JSON.stringify(bad.body));
      assert.equal((await api('POST', p, { body: {} })).status, 422);
      assert.equal((await api('GET', `${p}/7b0c6f8e-0000-4000-8000-000000000000`)).status, 404);
      assert.equal((await api('GET', `${p}/nope`)).status, 404);
    }
  });

  test("team B's erasure of the same address leaves team A's data alone", async () => {
    const start = await api('POST', '/privacy/erasures', { key: keyB, body: { email: ADDR } });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    assert.deepEqual(Object.keys(start.body).sort(), ['id', 'object', 'status']);
    assert.equal(start.body.object, 'privacy_erasure');
    const done = await waitRequest('erasures', start.body.id, keyB);
    assert.equal(done.counts.contacts, 1);
    assert.equal(done.counts.emails_addressed, 0);
    assert.equal((await api('GET', `/contacts/${ids.contact}`)).body.email, ADDR);
    assert.deepEqual((await w.t.resend.emails.get(ids.mixed)).data!.to, [ADDR, OTHER]);
    const events = (await api('GET', `/emails/${ids.only}/events`)).body.data as { type: string; data: any }[];
    assert.equal(events.find((e) => e.type === 'email.opened')!.data.open.userAgent, 'AnnMail/1.0');
    assert.equal((await api('GET', `/emails/receiving/${ids.received}`)).status, 200);
    const b = await w.t.db.pool.query('SELECT 1 FROM contacts WHERE team_id = $1', [teamB]);
    assert.equal(b.rowCount, 0);
    assert.equal((await api('GET', `/privacy/erasures/${start.body.id}`)).status, 404, 'not visible to team A');
  });

  test('the erasure leaves only the keyed hash; a rerun finds nothing; a later send is held', async () => {
    const start = await api('POST', '/privacy/erasures', { body: { email: ` ${ADDR.toUpperCase()} ` } });
    assert.equal(start.status, 202, JSON.stringify(start.body));
    const done = await waitRequest('erasures', start.body.id);
    const c = done.counts;
    assert.equal(c.contacts, 1);
    assert.equal(c.suppressions, 1, 'the plain suppression row went');
    assert.equal(c.segment_memberships, 1);
    assert.equal(c.topic_choices, 1);
    assert.equal(c.automation_runs, 1);
    assert.ok(c.custom_events >= 1, JSON.stringify(c));
    assert.equal(c.emails_addressed, 2);
    assert.equal(c.emails_content_removed, 1);
    assert.equal(c.received_emails, 1);
    for (const k of ['email_events', 'request_logs', 'webhook_attempts', 'exports'])
      assert.ok(c[k] >= 1, `${k}: ${c[k]}`);

    // contact.deleted went out, without the address.
    const deleted = await until('contact.deleted', async () =>
      rcv.received.map((x) => JSON.parse(x.body)).find((p) => p.type === 'contact.deleted'),
    );
    assert.equal(deleted.data.id, ids.contact);
    assert.notEqual(deleted.data.email, ADDR);

    // What stays: the other recipient, the mixed email's body; the content of the email sent only to it is gone.
    const mixed = (await w.t.resend.emails.get(ids.mixed)).data!;
    const hash = new AddressHasher(w.t.app.config.secretKey!).hash(ADDR);
    assert.deepEqual(mixed.to, [`erased-${hash.slice(0, 16)}@erased.invalid`, OTHER]);
    assert.equal(deleted.data.email, `erased-${hash.slice(0, 16)}@erased.invalid`);
    assert.equal(mixed.html, '<p>News for everyone</p>');
    const kept = await w.t.db.pool.query('SELECT raw FROM emails WHERE id = $1', [ids.mixed]);
    const parsed = await simpleParser(kept.rows[0].raw);
    assert.deepEqual(
      [parsed.to].flat().flatMap((a) => a!.value.map((v) => v.address)),
      [`erased-${hash.slice(0, 16)}@erased.invalid`, OTHER],
      'the raw message stays, its To header redacted',
    );
    assert.match(parsed.html as string, /News for everyone/);
    const only = (await w.t.resend.emails.get(ids.only)).data!;
    assert.equal(only.html, null);
    assert.equal(only.subject, '');
    const opened = ((await api('GET', `/emails/${ids.only}/events`)).body.data as { type: string; data: any }[]).find(
      (e) => e.type === 'email.opened',
    )!;
    assert.equal(opened.data.open.ipAddress, null);
    assert.equal(opened.data.open.userAgent, null);
    assert.equal((await api('GET', `/emails/receiving/${ids.received}`)).status, 404);
    assert.equal((await api('GET', `/contacts/${ids.contact}`)).status, 404);
    assert.equal((await api('GET', `/contacts/${encodeURIComponent(OTHER)}`)).status, 200, 'another contact stays');

    // A rerun finds nothing more.
    const again = await api('POST', '/privacy/erasures', { body: { email: ADDR } });
    const second = await waitRequest('erasures', again.body.id);
    assert.deepEqual(
      Object.entries(second.counts).filter(([, n]) => n !== 0),
      [],
    );

    // Every text, JSON, array and binary column of every table, and the data directory.
    await until('the erasure jobs to end', async () => {
      const q = await w.t.db.pool.query('SELECT 1 FROM jobs WHERE kind = ANY($1::text[])', [
        [PRIVACY_ERASE_JOB, PRIVACY_EXPORT_JOB],
      ]);
      return q.rowCount === 0;
    });
    await w.t.app.requestLogs!.flush();
    assert.deepEqual(await traces(w, ADDR), []);
    assert.deepEqual(filesContaining(w.t.dataDir, ADDR), []);
    const hashes = await w.t.db.pool.query('SELECT team_id FROM erased_addresses WHERE hash = $1 ORDER BY team_id', [
      hash,
    ]);
    assert.deepEqual(hashes.rows.map((r) => r.team_id).sort(), [w.t.app.defaultTeamId, teamB].sort());
    assert.equal((await w.t.db.pool.query('SELECT 1 FROM suppressions WHERE email = $1', [ADDR])).rowCount, 0);

    // The export document is gone with it.
    const exports = await w.t.db.pool.query("SELECT result_blob FROM privacy_requests WHERE kind = 'export'");
    assert.deepEqual(
      exports.rows.map((r) => r.result_blob),
      [null],
    );

    // Sent to again: accepted, then held at delivery; nothing reaches the MX for it.
    const before = w.mx.messages.length;
    const again2 = await w.t.resend.emails.send({ from: 'shop@example.com', to: [ADDR], subject: 'Hi', text: 'x' });
    assert.equal(again2.error, null);
    await waitForLastEvent(w.t, again2.data!.id, ['suppressed']);
    const held = (
      (await api('GET', `/emails/${again2.data!.id}/events`)).body.data as { type: string; data: any }[]
    ).find((e) => e.type === 'email.suppressed')!;
    assert.equal(held.data.suppressed.reason, 'erased');
    const other = await w.t.resend.emails.send({ from: 'shop@example.com', to: [OTHER], subject: 'Hi', text: 'y' });
    await waitForLastEvent(w.t, other.data!.id, ['delivered']);
    assert.equal(
      w.mx.messages.slice(before).filter((m) => m.rcptTo.includes(ADDR)).length,
      0,
      'nothing was delivered to the erased address',
    );
  });
});
