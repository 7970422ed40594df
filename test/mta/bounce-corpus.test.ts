// Scores the rules table (src/mta/classify.ts) on real replies: the tuning corpus
// (test/fixtures/bounce-corpus.ts) and the holdout (test/fixtures/bounce-holdout.ts), which is
// never used to adjust the rules. A reply is right when action, subType, category and the
// suppression decision all match. Both scores are printed; only the tuning misses are listed: a
// holdout whose misses are read stops being blind (the first one was retired for that reason).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyResponse, suppressesRecipient } from '../../src/mta/classify.js';
import { CORPUS, type Expect } from '../fixtures/bounce-corpus.js';
import { HOLDOUT } from '../fixtures/bounce-holdout.js';

const RESEND_SUBTYPES = [
  'Undetermined',
  'General',
  'NoEmail',
  'MailboxFull',
  'MessageTooLarge',
  'ContentRejected',
  'AttachmentRejected',
  'Suppressed',
];

interface Judged {
  provider: string;
  reply: string;
  got: string;
  want: string;
  suppressed: boolean;
  wanted: boolean;
}

const judge = (provider: string, [reply, action, subType, category, suppress]: Expect): Judged => {
  const c = classifyResponse(reply);
  assert.ok(RESEND_SUBTYPES.includes(c.subType), `${c.subType} is one of Resend's subTypes`);
  const suppressed = c.action === 'bounce' && suppressesRecipient(c.category);
  return {
    provider,
    reply: reply.split('\n')[0].slice(0, 90),
    got: `${c.action} ${c.subType}/${c.category}${suppressed ? ' suppressed' : ''}`,
    want: `${action} ${subType}/${category}${suppress ? ' suppressed' : ''}`,
    suppressed,
    wanted: suppress,
  };
};

const judgeAll = (set: Record<string, Expect[]>) =>
  Object.entries(set).flatMap(([provider, list]) => list.map((e) => judge(provider, e)));

const score = (name: string, set: Record<string, Expect[]>, listMisses: boolean) => {
  const judged = judgeAll(set);
  const misses = judged.filter((j) => j.got !== j.want);
  const right = judged.length - misses.length;
  console.log(`bounce ${name}: ${right}/${judged.length} (${((right / judged.length) * 100).toFixed(1)}%)`);
  if (listMisses)
    for (const m of misses) console.log(`  miss [${m.provider}] "${m.reply}": got ${m.got}, want ${m.want}`);
  return { misses, ratio: right / judged.length, right, total: judged.length };
};

const size = (set: Record<string, Expect[]>) => Object.values(set).reduce((n, l) => n + l.length, 0);

test('the corpus holds more than 300 replies, a quarter or more of them in the holdout, from many providers', () => {
  const tuning = size(CORPUS);
  const holdout = size(HOLDOUT);
  assert.ok(tuning + holdout > 300, `${tuning} + ${holdout} replies`);
  assert.ok(holdout / (tuning + holdout) >= 0.25, `holdout ${holdout} of ${tuning + holdout}`);
  assert.ok(Object.keys(CORPUS).length >= 10 && Object.keys(HOLDOUT).length >= 10);
});

test('the tuning corpus scores at least 98%', () => {
  const { ratio, misses } = score('tuning', CORPUS, true);
  assert.ok(ratio >= 0.98, JSON.stringify(misses, null, 1));
});

// Measured on the second holdout (265 replies): 210/265 (79.2%) with the rules it was written
// against, 231/265 (87.2%) after the rules were rewritten from the 360 tuning replies alone.
// Raise it only when a change written from the tuning corpus lifts the holdout; never by fitting it.
const HOLDOUT_FLOOR = 0.87;
// Holdout replies that the rules suppress although they should not: 3 before and after that change.
const HOLDOUT_WRONG_SUPPRESSIONS_CEILING = 3;

test('the holdout (never used to write the rules) scores at least its recorded floor', () => {
  const { ratio, right, total } = score('holdout', HOLDOUT, false);
  assert.ok(ratio >= HOLDOUT_FLOOR, `holdout ${right}/${total}, below its floor ${HOLDOUT_FLOOR}`);
});

test('no tuning reply suppresses a recipient that it should not, and the holdout stays at its count', () => {
  assert.deepEqual(
    judgeAll(CORPUS).filter((j) => j.suppressed && !j.wanted),
    [],
  );
  const wrong = judgeAll(HOLDOUT).filter((j) => j.suppressed && !j.wanted).length;
  console.log(`bounce holdout: ${wrong} replies would wrongly suppress the recipient`);
  assert.ok(wrong <= HOLDOUT_WRONG_SUPPRESSIONS_CEILING, `${wrong} holdout replies wrongly suppress`);
});

test('a block of our IP never suppresses the recipient (Microsoft 5.7.606)', () => {
  const c = classifyResponse('550 5.7.606 Access denied, banned sending IP [192.0.2.10].');
  assert.equal(c.action, 'bounce');
  assert.equal(suppressesRecipient(c.category), false);
});
