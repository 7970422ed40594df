// Every list the resend SDK offers, walked one item at a time (limit=1, then `after` the last id)
// and back (`before` the first id), through the SDK (raw HTTP only where the SDK takes no paging
// options), each compared with one unpaged read: the same items in the same order, and `has_more`
// true exactly while items remain. Issue 28 found GET /emails/:id/attachments?limit=1 answering
// every attachment with has_more false; a contact's segments and topics did the same.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { simpleParser } from 'mailparser';
import { startInboundWorld, type InboundWorld } from '../../helpers/inbound-world.js';
import { startReceiver, type Receiver } from '../../helpers/webhook-receiver.js';
import { until } from '../../helpers/until.js';

interface Paged {
  has_more: boolean;
  data: { id: string }[];
}
type Q = { limit?: number; after?: string; before?: string };
type Read = (q: Q) => Promise<Paged>;

/** An SDK answer's data, failing on its error. */
async function ok<T>(p: PromiseLike<{ data: T | null; error: unknown }>, what: string): Promise<T> {
  const r = await p;
  assert.equal(r.error, null, `${what}: ${JSON.stringify(r.error)}`);
  return r.data!;
}

/**
 * Walks a list forward and back one item at a time and compares with one read of up to 100.
 * `afterOnly`: the list pages with `after` only (the SDK's webhook events and attempts).
 * `growing`: new items may arrive at the top while walking (the request log, a webhook's events).
 */
async function walk(name: string, read: Read, opts: { afterOnly?: boolean; growing?: boolean } = {}): Promise<number> {
  const whole = await read({ limit: 100 });
  let ids = whole.data.map((x) => x.id);
  assert.ok(ids.length >= 2, `${name}: the test made at least 2 items, read ${ids.length}`);
  assert.equal(new Set(ids).size, ids.length, `${name}: ids are unique`);
  // A growing list gets new items at the top while it is walked (the request log logs the walk
  // itself, a webhook's late events): walk what follows its first item, which cannot change.
  const start: Q = opts.growing ? { after: ids[0] } : {};
  if (opts.growing) ids = ids.slice(1);
  assert.ok(ids.length >= 2, `${name}: at least 2 items to walk, read ${ids.length}`);

  const two = await read({ limit: 2, ...start });
  assert.deepEqual(
    two.data.map((x) => x.id),
    ids.slice(0, 2),
    `${name}: limit=2 gives the first two`,
  );
  assert.equal(two.has_more, ids.length > 2 || whole.has_more, `${name}: has_more of limit=2`);

  const forward: string[] = [];
  let q: Q = { limit: 1, ...start };
  for (let i = 0; i < ids.length; i++) {
    const p = await read(q);
    assert.equal(p.data.length, 1, `${name}: limit=1 gives one item (step ${i}: ${p.data.length})`);
    forward.push(p.data[0].id);
    assert.equal(p.has_more, i < ids.length - 1 || whole.has_more, `${name}: has_more at step ${i}`);
    q = { limit: 1, after: p.data[0].id };
  }
  assert.deepEqual(forward, ids, `${name}: walking after, one at a time, gives the unpaged order`);

  if (!opts.afterOnly) {
    const back: string[] = [ids[ids.length - 1]];
    for (let i = ids.length - 2; i >= 0; i--) {
      const p = await read({ limit: 1, before: back[0] });
      assert.equal(p.data.length, 1, `${name}: before gives one item (step ${i})`);
      back.unshift(p.data[0].id);
      // Before the first walked item of a growing list there is always more (the item skipped).
      assert.equal(p.has_more, i > 0 || Boolean(opts.growing), `${name}: has_more walking before, at ${i}`);
    }
    assert.deepEqual(back, ids, `${name}: walking before gives the same order`);
  }
  return ids.length;
}

function mixed(subject: string, files: [string, string][]): string {
  const b = `b-${randomUUID()}`;
  return [
    'From: Sam <sam@sender.test>',
    'To: box@inbound.test',
    `Subject: ${subject}`,
    `Message-ID: <${randomUUID()}@sender.test>`,
    `Date: ${new Date().toUTCString()}`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/mixed; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain; charset=utf-8',
    '',
    `${subject} body`,
    ...files.flatMap(([name, text]) => [
      `--${b}`,
      `Content-Type: text/plain; name="${name}"`,
      `Content-Disposition: attachment; filename="${name}"`,
      '',
      text,
    ]),
    `--${b}--`,
    '',
  ].join('\r\n');
}

describe('every list of the SDK honours limit, after and before with has_more', () => {
  let w: InboundWorld;
  let rcv: Receiver;
  const made: Record<string, string> = {};

  before(async () => {
    w = await startInboundWorld();
    const r = w.t.resend;
    rcv = await startReceiver();
    // Click tracking before anything is sent (the send path caches a domain for 5 s).
    const tracking = await w.t.api('PATCH', `/domains/${w.domainId}`, { body: { click_tracking: true } });
    assert.equal(tracking.status, 200, JSON.stringify(tracking.body));
    made.webhook = (
      await ok(r.webhooks.create({ endpoint: rcv.url, events: ['email.sent', 'email.delivered'] }), 'hook')
    ).id;
    await ok(r.webhooks.create({ endpoint: `${rcv.url}/second`, events: ['contact.created'] }), 'hook 2');
    await ok(r.domains.create({ name: 'third.example.net' }), 'domain');
    for (const name of ['one', 'two']) await ok(r.apiKeys.create({ name }), 'key');
    for (const key of ['city', 'plan']) await ok(r.contactProperties.create({ key, type: 'string' }), 'property');
    for (const name of ['walk.one', 'walk.two']) await ok(r.events.create({ name }), 'event');
    const topics = [];
    for (const name of ['News', 'Deals'])
      topics.push((await ok(r.topics.create({ name, defaultSubscription: 'opt_in' }), 'topic')).id);
    const segments = [];
    for (const name of ['A', 'B']) segments.push((await ok(r.segments.create({ name }), 'segment')).id);
    for (const email of ['ann@dest.test', 'bob@dest.test', 'cy@dest.test']) {
      const c = await ok(r.contacts.create({ email }), 'contact');
      made[email] = c.id;
      await ok(r.contacts.segments.add({ contactId: c.id, segmentId: segments[0] }), 'member');
    }
    await ok(r.contacts.segments.add({ contactId: made['ann@dest.test'], segmentId: segments[1] }), 'member');
    made.segment = segments[0];
    for (const n of [1, 2]) {
      const file = new Blob([`email\nimported${n}@dest.test\n`], { type: 'text/csv' });
      await ok(r.contacts.imports.create({ file } as never), 'import');
    }
    await ok(r.suppressions.add({ email: 'no1@dest.test' }), 'suppression');
    await ok(r.suppressions.add({ email: 'no2@dest.test' }), 'suppression');

    const tpl = (
      await ok(
        r.templates.create({ name: 'Hi', from: 'Acme <hello@example.com>', subject: 'Hi', html: '<p>hi</p>' } as never),
        'template',
      )
    ).id;
    await ok(r.templates.publish(tpl), 'publish');
    await ok(r.templates.create({ name: 'Other', html: '<p>o</p>' } as never), 'template 2');
    const auto = await ok(
      r.automations.create({
        name: 'Walk',
        status: 'enabled',
        steps: [
          { key: 't', type: 'trigger', config: { eventName: 'walk.start' } },
          { key: 'w', type: 'wait_for_event', config: { eventName: 'walk.never', timeout: '1 day' } },
          { key: 'a', type: 'send_email', config: { template: { id: tpl } } },
          { key: 'b', type: 'send_email', config: { template: { id: tpl } } },
        ],
        connections: [
          { from: 't', to: 'w' },
          { from: 'w', to: 'a', type: 'event_received' },
          { from: 'w', to: 'b', type: 'timeout' },
        ],
      } as never),
      'automation',
    );
    made.automation = auto.id;
    await ok(r.automations.duplicate(auto.id), 'automation copy');
    for (const email of ['ann@dest.test', 'bob@dest.test'])
      await ok(r.events.send({ event: 'walk.start', email }), 'send');

    const sent = await ok(
      r.emails.send({
        from: 'a@example.com',
        to: 'someone@dest.test',
        subject: 'Files',
        text: 'three files',
        attachments: [1, 2, 3].map((n) => ({ filename: `f${n}.txt`, content: Buffer.from(`file ${n}`) })),
      }),
      'email',
    );
    made.email = sent.id;
    await ok(r.emails.send({ from: 'a@example.com', to: 'other@dest.test', subject: 'Two', text: '2' }), 'email 2');

    const b1 = await ok(
      r.broadcasts.create({
        segmentId: segments[0],
        from: 'News <news@example.com>',
        subject: 'Links',
        html: '<p><a href="https://shop.example.org/one">one</a> <a href="https://shop.example.org/two">two</a></p>',
        send: true,
      }),
      'broadcast',
    );
    made.broadcast = b1.id;
    await ok(r.broadcasts.create({ segmentId: segments[0], from: 'n@example.com', subject: 'D', text: 'd' }), 'draft');

    for (const [subject, files] of [
      [
        'In one',
        [
          ['x.txt', 'x'],
          ['y.txt', 'y'],
          ['z.txt', 'z'],
        ],
      ],
      ['In two', []],
    ] as [string, [string, string][]][]) {
      await w.deliver(mixed(subject, files), { from: 'sam@sender.test', to: ['box@inbound.test'] });
    }

    // Everything asynchronous has landed: the broadcast's emails, two clicks on two links, the
    // inbound mail, the automation's runs, the webhook's events and a second attempt of one.
    await until(
      'the broadcast sent',
      async () => (await ok(r.broadcasts.get(b1.id), 'b')).status === 'sent' && true,
      30_000,
    );
    const emails = await until(
      "the broadcast's emails",
      async () => {
        const l = (await w.t.api('GET', `/emails?broadcast_id=${b1.id}&limit=100`)).body.data as { id: string }[];
        return l.length === 3 && l;
      },
      30_000,
    );
    const raw = await w.t.api('GET', `/dashboard-api/emails/${emails[0].id}/raw`);
    const html = (await simpleParser(raw.body as string)).html as string;
    const tracked = [...html.matchAll(/href="(http:\/\/[^"]+\/t\/c[^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
    assert.equal(tracked.length, 2, html);
    for (const link of tracked) {
      const u = new URL(link);
      assert.equal((await fetch(w.t.url + u.pathname + u.search, { redirect: 'manual' })).status, 302);
    }
    await until(
      'the clicks counted',
      async () => (await ok(r.broadcasts.clickedLinks(b1.id), 'links')).data.length === 2,
      20_000,
    );
    made.received = await until(
      'the inbound mail',
      async () => {
        const l = (await ok(r.emails.receiving.list(), 'received')).data;
        return l.length === 2 && l.find((e) => e.subject === 'In one')!.id;
      },
      30_000,
    );
    await until(
      'the runs',
      async () => (await ok(r.automations.runs.list({ automationId: auto.id }), 'runs')).data.length === 2,
      30_000,
    );
    const events = await until(
      "the webhook's events",
      async () => {
        const l = (await ok(r.webhooks.events.list({ webhookId: made.webhook }), 'events')).data;
        return l.length >= 2 && l;
      },
      30_000,
    );
    made.message = events[0].id;
    await ok(r.webhooks.events.replay({ webhookId: made.webhook, eventId: made.message } as never), 'replay');
    await until(
      'a second attempt',
      async () =>
        (await ok(r.webhooks.events.attempts.list({ webhookId: made.webhook, eventId: made.message }), 'attempts')).data
          .length >= 2,
      20_000,
    );
  });

  after(async () => {
    await rcv?.close();
    await w?.close();
  });

  test('each list, walked one at a time both ways, gives what one read gives', async () => {
    const r = w.t.resend;
    const sdk =
      <T extends Paged>(name: string, call: (q: never) => Promise<{ data: T | null; error: unknown }>): Read =>
      (q) =>
        ok(call(q as never), name);
    const lists: [string, Read, { afterOnly?: boolean; growing?: boolean }?][] = [
      ['apiKeys', sdk('apiKeys', (q) => r.apiKeys.list(q))],
      ['automations', sdk('automations', (q) => r.automations.list(q))],
      [
        'automations.runs',
        sdk('runs', (q: object) => r.automations.runs.list({ automationId: made.automation, ...q } as never)),
      ],
      ['broadcasts', sdk('broadcasts', (q) => r.broadcasts.list(q))],
      [
        'broadcasts.recipients',
        sdk('recipients', (q: object) => r.broadcasts.recipients(made.broadcast, { type: 'sent', ...q } as never)),
      ],
      ['broadcasts.clickedLinks', sdk('clickedLinks', (q) => r.broadcasts.clickedLinks(made.broadcast, q))],
      ['contactProperties', sdk('contactProperties', (q) => r.contactProperties.list(q))],
      ['contacts.imports', sdk('imports', (q) => r.contacts.imports.list(q))],
      [
        'contacts.segments',
        sdk('contact segments', (q: object) =>
          r.contacts.segments.list({ contactId: made['ann@dest.test'], ...q } as never),
        ),
      ],
      [
        'contacts.topics',
        sdk('contact topics', (q: object) => r.contacts.topics.list({ id: made['ann@dest.test'], ...q } as never)),
      ],
      ['contacts', sdk('contacts', (q) => r.contacts.list(q))],
      [
        'contacts (segment)',
        sdk('contacts', (q: object) => r.contacts.list({ segmentId: made.segment, ...q } as never)),
      ],
      ['domains', sdk('domains', (q) => r.domains.list(q))],
      [
        'emails.attachments',
        sdk('attachments', (q: object) => r.emails.attachments.list({ emailId: made.email, ...q } as never)),
      ],
      ['emails', sdk('emails', (q) => r.emails.list(q))],
      ['emails.receiving', sdk('receiving', (q) => r.emails.receiving.list(q))],
      [
        'emails.receiving.attachments',
        sdk('received attachments', (q: object) =>
          r.emails.receiving.attachments.list({ emailId: made.received, ...q } as never),
        ),
      ],
      ['events', sdk('events', (q) => r.events.list(q))],
      ['logs', sdk('logs', (q) => r.logs.list(q)), { growing: true }],
      ['segments', sdk('segments', (q) => r.segments.list(q))],
      ['suppressions', sdk('suppressions', (q) => r.suppressions.list(q))],
      ['templates', sdk('templates', (q) => r.templates.list(q))],
      [
        // resend.topics.list() takes no paging options: raw HTTP.
        'topics',
        async (q) => {
          const qs = new URLSearchParams(Object.entries(q).map(([k, v]) => [k, String(v)]));
          const res = await w.t.api('GET', `/topics?${qs}`);
          assert.equal(res.status, 200, JSON.stringify(res.body));
          return res.body;
        },
      ],
      ['webhooks', sdk('webhooks', (q) => r.webhooks.list(q))],
      [
        'webhooks.events',
        sdk('webhook events', (q: object) => r.webhooks.events.list({ webhookId: made.webhook, ...q } as never)),
        { afterOnly: true, growing: true },
      ],
      [
        'webhooks.events.attempts',
        sdk('attempts', (q: object) =>
          r.webhooks.events.attempts.list({ webhookId: made.webhook, eventId: made.message, ...q } as never),
        ),
        { afterOnly: true },
      ],
    ];
    const failures: string[] = [];
    const walked: string[] = [];
    for (const [name, read, opts] of lists) {
      try {
        walked.push(`${name}: ${await walk(name, read, opts)}`);
      } catch (e) {
        failures.push((e as Error).message.split('\n')[0]);
      }
    }
    assert.deepEqual(failures, [], `walked: ${walked.join(', ')}`);
  });
});
