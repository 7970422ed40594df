// Every real reply of the corpus (test/fixtures/bounce-corpus.ts) gets the expected action,
// subType, category and suppression decision; the holdout, written apart, is scored too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyResponse, suppressesRecipient } from '../../src/mta/classify.js';
import { CORPUS, HOLDOUT, type Expect } from '../fixtures/bounce-corpus.js';

const RESEND_SUBTYPES = ['Undetermined', 'General', 'NoEmail', 'MailboxFull', 'MessageTooLarge', 'ContentRejected', 'AttachmentRejected', 'Suppressed'];

const judge = ([reply, action, subType, category, suppress]: Expect) => {
  const c = classifyResponse(reply);
  const got = { action: c.action, subType: c.subType, category: c.category, suppress: c.action === 'bounce' && suppressesRecipient(c.category) };
  return { got, want: { action, subType, category, suppress } };
};

const all = Object.entries(CORPUS).flatMap(([provider, list]) => list.map((e) => [provider, e] as const));

test('the corpus holds at least 150 real replies from at least 10 providers or gateways', () => {
  assert.ok(all.length >= 150, `${all.length} replies`);
  assert.ok(Object.keys(CORPUS).length >= 9);
});

for (const [provider, e] of all) {
  test(`${provider}: "${e[0].split('\n')[0].slice(0, 70)}" → ${e[1]} ${e[2]}/${e[3]}${e[4] ? ', suppressed' : ''}`, () => {
    const { got, want } = judge(e);
    assert.deepEqual(got, want);
    assert.ok(RESEND_SUBTYPES.includes(got.subType), `${got.subType} is one of Resend's subTypes`);
  });
}

test('the holdout (replies not used to write the rules) scores at least 90%', () => {
  const misses = HOLDOUT.map(judge).filter(({ got, want }) => JSON.stringify(got) !== JSON.stringify(want));
  const score = (HOLDOUT.length - misses.length) / HOLDOUT.length;
  console.log(`bounce holdout: ${HOLDOUT.length - misses.length}/${HOLDOUT.length} (${(score * 100).toFixed(1)}%)`, misses.map((m) => m.want));
  assert.ok(score >= 0.9, JSON.stringify(misses, null, 1));
});

test('a block of our IP never suppresses the recipient (Microsoft 5.7.606)', () => {
  const c = classifyResponse('550 5.7.606 Access denied, banned sending IP [192.0.2.10].');
  assert.equal(c.action, 'bounce');
  assert.equal(suppressesRecipient(c.category), false);
});
