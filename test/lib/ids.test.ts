// src/lib/ids.ts: the token hash (API keys and OAuth secrets are looked up by it, so it must never
// change), whichever of Node's two ways computes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../src/lib/ids.js';

test('sha256Hex is the lowercase hex SHA-256 of the UTF-8 string', () => {
  assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  for (const s of ['re_abcdefgh_abcdefghijklmnopqrstuvwx', 'é€😀', 'a'.repeat(100_000), '\u0000\ud800'])
    assert.equal(sha256Hex(s), createHash('sha256').update(s, 'utf8').digest('hex'));
});
