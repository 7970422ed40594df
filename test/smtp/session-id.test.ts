// The session id of a connection (server.ts nextSessionId, used instead of the library's
// randomBytes id): the library's form (16 base-32 characters), unique within the process (the
// policy hooks count open sessions by id), and given to real connections.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nextSessionId } from '../../src/smtp/server.js';

test('session ids: 16 base-32 characters, one per-process prefix, no repeats over 20,000', () => {
  const seen = new Set<string>();
  const first = nextSessionId();
  for (let i = 0; i < 20_000; i++) {
    const id = nextSessionId();
    assert.match(id, /^[0-9a-v]{16}$/);
    assert.equal(id.slice(0, 8), first.slice(0, 8));
    assert.ok(!seen.has(id), `repeated id ${id}`);
    seen.add(id);
  }
  assert.notEqual(nextSessionId(), nextSessionId());
});
