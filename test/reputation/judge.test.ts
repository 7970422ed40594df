// The guard's verdict from counts (reputation/judge.ts): Gmail and Yahoo's thresholds as the
// defaults, the minimum sample, act before warn, complaints named before bounces, both windows.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, ratesOf, type Thresholds } from '../../src/reputation/judge.js';
import { loadConfig } from '../../src/config/load.js';

const defaults = (): Thresholds => loadConfig({});
const c = (delivered: number, hard: number, complained = 0, soft = 0) => ({
  delivered,
  bounced: hard + soft,
  hard_bounced: hard,
  complained,
});
const hour = (counts: ReturnType<typeof c>) => ({ label: 'the last hour', counts });
const week = (counts: ReturnType<typeof c>) => ({ label: 'the last 7 days', counts });

describe('the reputation verdict', () => {
  test("the defaults are Gmail and Yahoo's: complaints warn 0.1% act 0.3%, hard bounces warn 2% act 5%, 100 recipients first", () => {
    const t = defaults();
    assert.deepEqual(
      [
        t.reputationComplaintWarn,
        t.reputationComplaintAct,
        t.reputationBounceWarn,
        t.reputationBounceAct,
        t.reputationMinSample,
      ],
      [0.001, 0.003, 0.02, 0.05, 100],
    );
  });

  test('1 hard bounce out of 3 trips nothing below the minimum sample', () => {
    assert.deepEqual(judge(defaults(), [hour(c(2, 1)), week(c(2, 1))]), { state: 'ok', reason: null });
  });

  test('hard bounces warn at 2% and act at 5% of delivered + bounced', () => {
    const t = defaults();
    assert.equal(judge(t, [hour(c(99, 1))]).state, 'ok'); // 1%
    assert.equal(judge(t, [hour(c(98, 2))]).state, 'warning'); // 2%
    const v = judge(t, [hour(c(95, 5))]);
    assert.equal(v.state, 'paused');
    assert.equal(
      v.reason,
      'hard-bounce rate 5.00% over the last hour (5 of 100) reached 5.00% (MAILROOM_REPUTATION_BOUNCE_ACT)',
    );
  });

  test('soft bounces count in the sample, not as hard bounces', () => {
    assert.equal(judge(defaults(), [hour(c(50, 1, 0, 49))]).state, 'ok');
  });

  test('complaints warn at 0.1% and act at 0.3%, and are named before bounces', () => {
    const t = defaults();
    assert.equal(judge(t, [week(c(1000, 0, 1))]).state, 'warning');
    const v = judge(t, [week(c(994, 6, 3))]); // 0.3% complaints and 0.6% hard bounces
    assert.equal(v.state, 'paused');
    assert.match(v.reason!, /^complaint rate 0\.30% over the last 7 days \(3 of 1000\)/);
  });

  test('either window can act; acting beats a warning in the other window', () => {
    const v = judge(defaults(), [hour(c(1000, 25)), week(c(10_000, 600))]);
    assert.equal(v.state, 'paused');
    assert.match(v.reason!, /over the last 7 days/);
  });

  test('rates of an empty window are null', () => {
    assert.deepEqual(ratesOf(c(0, 0)), { sample: 0, bounce_rate: null, complaint_rate: null });
  });
});
