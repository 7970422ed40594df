import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import { parseScheduledAt } from '../../src/emails/schedule.js';

const now = new Date('2025-06-04T12:00:00Z'); // a Wednesday, New York on EDT (-4), Berlin on CEST (+2)
const at = (s: string, base = now) => parseScheduledAt(s, base).toISOString();

function rejects(s: string, message: RegExp, base = now) {
  assert.throws(
    () => parseScheduledAt(s, base),
    (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.equal(err.code, 'validation_error');
      assert.equal(err.status, 422);
      assert.match(err.message, message);
      return true;
    },
    s,
  );
}

test('accepts ISO 8601 with Z, an offset, or none (UTC), and the Postgres text form', () => {
  assert.equal(at('2025-06-05T10:00:00Z'), '2025-06-05T10:00:00.000Z');
  assert.equal(at('2025-06-05T10:00:00+02:00'), '2025-06-05T08:00:00.000Z');
  assert.equal(at('2025-06-05T10:00:00.250-0500'), '2025-06-05T15:00:00.250Z');
  assert.equal(at('2025-06-05T10:00'), '2025-06-05T10:00:00.000Z');
  assert.equal(at('2025-06-05 10:00:00.674981+00'), '2025-06-05T10:00:00.675Z');
});

test('accepts relative durations', () => {
  assert.equal(at('in 1 min'), '2025-06-04T12:01:00.000Z');
  assert.equal(at('in 5 minutes'), '2025-06-04T12:05:00.000Z');
  assert.equal(at('in 2 hours'), '2025-06-04T14:00:00.000Z');
  assert.equal(at('In 3 Days'), '2025-06-07T12:00:00.000Z');
  assert.equal(at('in an hour'), '2025-06-04T13:00:00.000Z');
  assert.equal(at('in 30s'), '2025-06-04T12:00:30.000Z');
  assert.equal(at('in 1 week'), '2025-06-11T12:00:00.000Z');
});

test('accepts today, tomorrow and bare times', () => {
  assert.equal(at('tomorrow at 9am'), '2025-06-05T09:00:00.000Z');
  assert.equal(at('tomorrow at 9:30 pm'), '2025-06-05T21:30:00.000Z');
  assert.equal(at('today at 17:00'), '2025-06-04T17:00:00.000Z');
  assert.equal(at('tomorrow at noon'), '2025-06-05T12:00:00.000Z');
  assert.equal(at('tomorrow at 12am'), '2025-06-05T00:00:00.000Z');
  assert.equal(at('at 3pm'), '2025-06-04T15:00:00.000Z');
  assert.equal(at('at 11am'), '2025-06-05T11:00:00.000Z', 'a bare time already past today means tomorrow');
});

test('accepts weekdays: plain means the next one still ahead, "next" never means today', () => {
  assert.equal(at('Friday at 3pm'), '2025-06-06T15:00:00.000Z');
  assert.equal(at('on fri at 3 p.m.'), '2025-06-06T15:00:00.000Z');
  assert.equal(at('next monday at 10am'), '2025-06-09T10:00:00.000Z');
  assert.equal(at('Wednesday at 1pm'), '2025-06-04T13:00:00.000Z');
  assert.equal(at('Wednesday at 11am'), '2025-06-11T11:00:00.000Z');
  assert.equal(at('next Wednesday at 1pm'), '2025-06-11T13:00:00.000Z');
});

test('applies timezone suffixes, following DST for the generic names', () => {
  assert.equal(at('Friday at 3pm ET'), '2025-06-06T19:00:00.000Z');
  assert.equal(at('tomorrow at 9am PT'), '2025-06-05T16:00:00.000Z');
  assert.equal(at('tomorrow at 9am PST'), '2025-06-05T17:00:00.000Z');
  assert.equal(at('tomorrow at 9am UTC'), '2025-06-05T09:00:00.000Z');
  assert.equal(at('tomorrow at 9am CET'), '2025-06-05T07:00:00.000Z');
  assert.equal(at('tomorrow at 9am Europe/Paris'), '2025-06-05T07:00:00.000Z');
  assert.equal(at('tomorrow at 9am UTC+5:30'), '2025-06-05T03:30:00.000Z');
  const winter = new Date('2025-01-08T12:00:00Z');
  assert.equal(at('tomorrow at 9am ET', winter), '2025-01-09T14:00:00.000Z');
});

test('"today" is the date in the requested zone, not in UTC', () => {
  const lateUtc = new Date('2025-06-04T02:00:00Z'); // still June 3 in Los Angeles
  assert.equal(at('today at 9pm PT', lateUtc), '2025-06-04T04:00:00.000Z');
});

test('rejects times in the past', () => {
  rejects('2025-06-04T11:59:59Z', /^scheduled_at must be in the future/);
  rejects('today at 9am', /^scheduled_at must be in the future/);
  rejects('today at noon', /^scheduled_at must be in the future/);
  rejects('in 0 minutes', /^scheduled_at must be in the future/);
});

test('rejects times more than 30 days ahead', () => {
  assert.equal(at('in 30 days'), '2025-07-04T12:00:00.000Z');
  rejects('in 31 days', /^scheduled_at must be within 30 days/);
  rejects('2025-07-04T12:00:01Z', /^scheduled_at must be within 30 days/);
});

test('rejects what it cannot understand, naming scheduled_at', () => {
  for (const s of [
    'yesterday',
    'tomorrow',
    'soon',
    'in 5 parsecs',
    'at 25:00',
    'at 9',
    'at 13pm',
    '2025-02-30T10:00:00Z',
    'tomorrow at 9am Mars/Olympus',
    'monkey at 3pm',
    'x'.repeat(500),
    '',
  ]) {
    rejects(s, /^Invalid `scheduled_at` field: /);
  }
});
