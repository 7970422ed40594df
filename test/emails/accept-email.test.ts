// EmailAcceptor.email, the one-email form (no database: it only builds): the row, the first event
// and one delivery job per recipient domain, as JSON (what the accept statement receives), key
// order included.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EmailAcceptor, type EmailDraft } from '../../src/emails/accept.js';
import type { Domains } from '../../src/domains/service.js';
import type { Pool } from '../../src/store/db.js';
import type { DomainRow } from '../../src/store/domains.js';

const acceptor = new EmailAcceptor({} as Pool, {} as Domains);
const domain = { id: '00000000-0000-4000-8000-00000000000d', region: 'eu', name: 'example.com' } as DomainRow;
const at = (address: string) => ({ address, domain: address.split('@')[1] });
const now = new Date('2026-11-27T18:00:00.123Z');

function draft(scheduledAt: Date | null): EmailDraft {
  return {
    id: '00000000-0000-4000-8000-0000000000e1',
    from: { name: 'Acme', ...at('a@example.com') },
    to: [at('X@b.test'), at('y@c.test'), at('x@b.test')],
    cc: [at('z@c.test')],
    bcc: [at('Y@c.test'), at('w@d.test')],
    replyTo: [],
    subject: 's',
    html: '<p>h</p>',
    text: null,
    headers: [],
    tags: [{ name: 't', value: 'v' }],
    scheduledAt,
    messageId: '<m@example.com>',
    raw: Buffer.from('raw'),
    listMail: false,
    listId: null,
    broadcastId: null,
    automationId: null,
  };
}

const ctx = {
  teamId: '00000000-0000-4000-8000-0000000000a1',
  apiKeyId: null,
  keyDomainId: null,
  source: 'api' as const,
};

test('one job per recipient domain, distinct lowercased recipients in first-seen order', () => {
  const e = acceptor.email(ctx, { domain, topicId: null }, draft(null), now);
  const data = e.event.data as Record<string, unknown>;
  const job = (d: string, r: string[]) =>
    `{"payload":{"email_id":"00000000-0000-4000-8000-0000000000e1","team_id":"00000000-0000-4000-8000-0000000000a1","domain":"${d}","recipients":${JSON.stringify(r)}},"run_at":"2026-11-27T18:00:00.123Z","region":"eu","priority":0}`;
  assert.equal(
    JSON.stringify(e.jobs),
    `[${job('b.test', ['x@b.test'])},${job('c.test', ['y@c.test', 'z@c.test'])},${job('d.test', ['w@d.test'])}]`,
  );
  assert.equal(e.row.created_at, '2026-11-27T18:00:00.123Z');
  assert.equal(e.row.last_event, 'sent');
  assert.equal(e.event.type, 'email.sent');
  assert.equal(e.event.created_at, '2026-11-27T18:00:00.123Z');
  assert.deepEqual(Object.keys(data), ['email_id', 'created_at', 'from', 'to', 'subject', 'message_id', 'tags']);
  assert.equal(data.created_at, '2026-11-27T18:00:00.123Z');
  assert.deepEqual(data.to, ['X@b.test', 'y@c.test', 'x@b.test']);
  assert.deepEqual(data.tags, { t: 'v' });
});

test('a scheduled email: its jobs run at its time and say so; its event is email.scheduled at acceptance', () => {
  const when = new Date('2026-12-01T09:30:00.000Z');
  const e = acceptor.email({ ...ctx, source: 'automation' }, { domain, topicId: null }, draft(when), now);
  const data = e.event.data as Record<string, unknown>;
  assert.deepEqual(
    e.jobs.map((j) => [JSON.stringify(j.payload), j.run_at, j.priority]),
    [
      [
        '{"email_id":"00000000-0000-4000-8000-0000000000e1","team_id":"00000000-0000-4000-8000-0000000000a1","domain":"b.test","recipients":["x@b.test"],"scheduled":true}',
        '2026-12-01T09:30:00.000Z',
        1,
      ],
      [
        '{"email_id":"00000000-0000-4000-8000-0000000000e1","team_id":"00000000-0000-4000-8000-0000000000a1","domain":"c.test","recipients":["y@c.test","z@c.test"],"scheduled":true}',
        '2026-12-01T09:30:00.000Z',
        1,
      ],
      [
        '{"email_id":"00000000-0000-4000-8000-0000000000e1","team_id":"00000000-0000-4000-8000-0000000000a1","domain":"d.test","recipients":["w@d.test"],"scheduled":true}',
        '2026-12-01T09:30:00.000Z',
        1,
      ],
    ],
  );
  assert.equal(e.row.scheduled_at, '2026-12-01T09:30:00.000Z');
  assert.equal(e.row.created_at, '2026-11-27T18:00:00.123Z');
  assert.equal(e.event.type, 'email.scheduled');
  assert.equal(data.created_at, '2026-11-27T18:00:00.123Z');
});
