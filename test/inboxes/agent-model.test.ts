// The inbox agent's edges without a model: the model answer's strict schema (parseAnswer), the
// model call's private-network guard, deadline and size bound (chatComplete), and an installation
// with no model configured: the settings are stored, GET says `model_configured: false`, a received
// email is filed and its run does nothing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import MailComposer from 'nodemailer/lib/mail-composer/index.js';
import { parseAnswer } from '../../src/inboxes/agent-run.js';
import { chatComplete, MAX_RESPONSE_BYTES, ModelError } from '../../src/inboxes/agent-model.js';
import { INBOX_AGENT_JOB } from '../../src/store/jobs.js';
import { startInboundWorld, type InboundWorld } from '../helpers/inbound-world.js';
import { closeAll } from '../helpers/close-all.js';
import { until } from '../helpers/until.js';

describe("the model answer's schema", () => {
  test('valid actions pass; unknown actions, extra fields and wrong types are ignored, each named', () => {
    const r = parseAnswer(
      JSON.stringify({
        actions: [
          { type: 'draft_reply', text: 'ok' },
          { type: 'add_labels', labels: ['Billing'] },
          { type: 'archive' },
          { type: 'send_email', to: 'a@b.test' },
          { type: 'draft_reply', text: 'x', send: true },
          { type: 'forward_thread', to: ['a@b.test', 'c@d.test'] },
          { type: 'add_labels', labels: [] },
          { type: 'assign_thread' },
          'archive',
        ],
        note: 'ignore',
      }),
    );
    assert.deepEqual(r.actions, [
      { type: 'draft_reply', text: 'ok' },
      { type: 'add_labels', labels: ['Billing'] },
      { type: 'archive' },
    ]);
    assert.equal(r.ignored.length, 7, r.ignored.join('; '));
    assert.ok(r.ignored.some((x) => /send_email/.test(x)));
    assert.ok(r.ignored.some((x) => /unexpected field "send"/.test(x)));
    assert.ok(r.ignored.some((x) => /unexpected field "note"/.test(x)));
  });

  test('not JSON, not an object, no list, too many actions', () => {
    assert.deepEqual(parseAnswer('Sure! {"actions": []}').actions, []);
    assert.deepEqual(parseAnswer('[{"type":"archive"}]').actions, []);
    assert.deepEqual(parseAnswer('{"actions": {"type":"archive"}}').actions, []);
    const many = parseAnswer(JSON.stringify({ actions: Array.from({ length: 50 }, () => ({ type: 'archive' })) }));
    assert.equal(many.actions.length, 10);
  });
});

describe('the model call', () => {
  let server: http.Server;
  let url: string;
  let hits = 0;
  let mode: 'big' | 'silent' | 'ok' = 'ok';
  before(async () => {
    server = http.createServer((req, res) => {
      hits++;
      req.resume();
      if (mode === 'silent') return; // never answers
      const content = mode === 'big' ? 'x'.repeat(MAX_RESPONSE_BYTES + 10) : '{"actions":[]}';
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    return new Promise<void>((r) => server.close(() => r()));
  });
  const opts = (o: Partial<Parameters<typeof chatComplete>[0]> = {}) => ({
    url,
    model: 'm',
    allowPrivateNetworks: true,
    timeoutMs: 2000,
    ...o,
  });
  const msgs = [{ role: 'user' as const, content: 'hi' }];

  test('answers through the guard when private networks are allowed', async () => {
    mode = 'ok';
    assert.equal(await chatComplete(opts(), msgs), '{"actions":[]}');
  });

  test('a loopback model is refused without MAILROOM_ALLOW_PRIVATE_NETWORKS: no request is made', async () => {
    const before1 = hits;
    await assert.rejects(chatComplete(opts({ allowPrivateNetworks: false }), msgs), /loopback|not allowed/);
    await assert.rejects(
      chatComplete(opts({ allowPrivateNetworks: false, url: url.replace('127.0.0.1', 'localhost') }), msgs),
      ModelError,
    );
    assert.equal(hits, before1);
  });

  test('an answer over the size bound and a model that never answers fail', async () => {
    mode = 'big';
    await assert.rejects(chatComplete(opts(), msgs), /over \d+ bytes/);
    mode = 'silent';
    const started = Date.now();
    await assert.rejects(chatComplete(opts({ timeoutMs: 300 }), msgs), /did not answer in 300 ms/);
    assert.ok(Date.now() - started < 2000);
  });
});

describe('an installation with no model configured', () => {
  let w: InboundWorld;
  let inboxId: string;
  before(async () => {
    w = await startInboundWorld();
    inboxId = (await w.t.resend.inboxes.create({ emailAddress: 'help@inbound.test' })).data!.id;
  });
  after(() => closeAll(() => w.close()));

  test('stores the settings, says model_configured: false, and a received email changes nothing', async () => {
    const up = await w.t.resend.inboxes.agent.update({ inboxId, actions: ['draft_reply', 'archive'] });
    assert.equal(up.error, null);
    const got = (await w.t.resend.inboxes.agent.get({ inboxId })).data as unknown as Record<string, unknown>;
    assert.deepEqual(got.actions, ['draft_reply', 'archive']);
    assert.equal(got.model_configured, false);

    const raw = await new MailComposer({
      from: 'someone@sender.test',
      to: 'help@inbound.test',
      subject: 'Hi',
      text: 'Hello',
    })
      .compile()
      .build();
    await w.deliver(raw, { from: 'someone@sender.test', to: ['help@inbound.test'] });
    const thread = await until(
      'the thread',
      async () => (await w.t.resend.inboxes.threads.list({ inboxId })).data?.data[0],
    );
    // The run (queued with the thread) ends having done nothing: no job left, no draft, no move.
    await until('the run to end', async () => {
      const { rows } = await w.t.db.pool.query('SELECT 1 FROM jobs WHERE kind = $1', [INBOX_AGENT_JOB]);
      return rows.length === 0;
    });
    assert.equal((await w.t.resend.inboxes.drafts.list({ inboxId })).data!.data.length, 0);
    const t = (await w.t.resend.inboxes.threads.get({ inboxId, threadId: thread.id })).data!;
    assert.equal(t.folder, 'inbox');
  });
});
