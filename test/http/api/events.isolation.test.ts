// One team's custom event must never fail another's (issue 24): POST /events/send bounds the payload
// at the edge (422 naming it), and the group commit that events of concurrent requests share
// stores everyone else's when one entry fails in the database.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Resend } from 'resend';
import { startTestApp, type TestApp } from '../../helpers/harness.js';
import { teamCreate } from '../../../src/store/teams.js';

/** `{"a": {"a": ... {}}}`, `depth` objects deep, as JSON text (JSON.stringify would recurse). */
const nested = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

describe("custom events of one team cannot fail another team's", () => {
  let t: TestApp;
  let other: { key: string; teamId: string };
  const stored = async (teamId: string, name: string) =>
    (
      await t.db.pool.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM custom_events WHERE team_id = $1 AND name = $2',
        [teamId, name],
      )
    ).rows[0].n;
  const send = (raw: string, headers: Record<string, string> = {}) =>
    t.api('POST', '/events/send', { raw, headers: { 'content-type': 'application/json', ...headers } });

  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture', rateLimit: 100_000 });
    const team = await teamCreate(t.db.pool, 'Other');
    other = { key: (await t.app.apiKeys.create(team.id, { name: 'other' })).token, teamId: team.id };
  });
  after(async () => {
    await t.close();
  });

  test('a payload nested 6,000 deep is a 422 validation_error naming `payload`, with or without an idempotency key', async () => {
    const raw = `{"event":"deep.one","email":"deep@example.com","payload":${nested(6000)}}`;
    const withAndWithoutKey: Record<string, string>[] = [{}, { 'idempotency-key': 'deep-1' }];
    for (const headers of withAndWithoutKey) {
      const r = await send(raw, headers);
      assert.equal(r.status, 422, JSON.stringify(r.body));
      assert.deepEqual(Object.keys(r.body).sort(), ['message', 'name', 'statusCode']);
      assert.equal(r.body.name, 'validation_error');
      assert.match(r.body.message, /`payload`.*32 levels/);
    }
    assert.equal(
      (await send(`{"event":"deep.ok","email":"deep@example.com","payload":${nested(32)}}`)).status,
      202,
      '32 levels are fine',
    );
    assert.equal((await send(`{"event":"deep.one","email":"deep@example.com","payload":${nested(33)}}`)).status, 422);
  });

  test('a payload larger than 64 KB is a 422 naming `payload`', async () => {
    const big = await send(
      JSON.stringify({ event: 'big.one', email: 'big@example.com', payload: { text: 'x'.repeat(65 * 1024) } }),
    );
    assert.equal(big.status, 422, JSON.stringify(big.body));
    assert.match(big.body.message, /`payload`.*64 KB/);
    const fits = await send(
      JSON.stringify({ event: 'big.ok', email: 'big@example.com', payload: { text: 'x'.repeat(60 * 1024) } }),
    );
    assert.equal(fits.status, 202, JSON.stringify(fits.body));
  });

  test('300 valid events of another team sent alongside the deep one are all stored', async () => {
    const client = new Resend(other.key, { baseUrl: t.url });
    const bad = send(`{"event":"shared.batch","email":"mallory@example.com","payload":${nested(6000)}}`);
    const good = Array.from({ length: 300 }, (_, i) =>
      client.events.send({ event: 'shared.batch', email: `user${i}@example.org`, payload: { n: i } }),
    );
    const [b, ...rest] = await Promise.all([bad, ...good]);
    const failed = rest.filter((r) => r.error);
    assert.deepEqual(
      failed.map((r) => r.error),
      [],
      'every valid event was accepted',
    );
    assert.equal(await stored(other.teamId, 'shared.batch'), 300);
    assert.equal(b.status, 422);
  });
});
