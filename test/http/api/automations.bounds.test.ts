// An automation's steps and connections are stored as given (a step's config may carry extra keys):
// like every free-form JSON the API stores, they are bounded in depth and size (lib/json-bounds.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApp, type TestApp } from '../../helpers/harness.js';

/** `{"a": {"a": ... {}}}`, `depth` objects deep, as JSON text (JSON.stringify would recurse). */
const nested = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

describe('automation graphs are bounded JSON', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ deliveryMode: 'capture' });
  });
  after(async () => {
    await t.close();
  });

  const create = (extra: string) =>
    t.api('POST', '/automations', {
      headers: { 'content-type': 'application/json' },
      raw: `{"name":"Deep","steps":[{"key":"start","type":"trigger","config":{"event_name":"deep.start","extra":${extra}}}],"connections":[]}`,
    });

  test('a step config nested thousands deep is a 422 naming `steps`; a shallow one is stored', async () => {
    const deep = await create(nested(5000));
    assert.equal(deep.status, 422, JSON.stringify(deep.body));
    assert.equal(deep.body.name, 'validation_error');
    assert.match(deep.body.message, /`steps`.*32 levels/);
    const shallow = await create(nested(5));
    assert.equal(shallow.status, 201, JSON.stringify(shallow.body));
  });
});
