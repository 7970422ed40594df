import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppError } from '../../src/errors.js';
import { LIMITS, matches, parseFilter, type Rule } from '../../src/contacts/filter.js';
import { filterSql } from '../../src/store/segment-filter.js';

const ctx = {
  properties: new Map<string, 'string' | 'number'>([
    ['plan', 'string'],
    ['seats', 'number'],
  ]),
};
const ada = {
  email: 'ada@example.org',
  first_name: 'Ada',
  last_name: null,
  unsubscribed: false,
  created_at: '2026-03-01 10:00:00+00',
  properties: { plan: 'Pro', seats: 3 },
};
const bob = {
  email: 'bob@example.net',
  first_name: '',
  last_name: 'Builder',
  unsubscribed: true,
  created_at: new Date('2026-05-01T00:00:00Z'),
  properties: {},
};
const is = (raw: unknown, c: typeof ada | typeof bob) => matches(parseFilter(raw, ctx), c);

function refused(raw: unknown, message: RegExp): void {
  assert.throws(
    () => parseFilter(raw, ctx),
    (e: unknown) =>
      e instanceof AppError && e.code === 'validation_error' && e.status === 422 && message.test(e.message),
    JSON.stringify(raw),
  );
}

test('every op on strings, with substring ops ignoring case and missing values failing all but neq, exists and is_empty', () => {
  assert.equal(is({ field: 'first_name', op: 'eq', value: 'Ada' }, ada), true);
  assert.equal(is({ field: 'first_name', op: 'eq', value: 'ada' }, ada), false, 'eq is exact');
  assert.equal(is({ field: 'last_name', op: 'neq', value: 'Builder' }, ada), true, 'a missing value is not equal');
  assert.equal(is({ field: 'last_name', op: 'neq', value: 'Builder' }, bob), false);
  assert.equal(is({ field: 'email', op: 'contains', value: 'EXAMPLE' }, ada), true);
  assert.equal(is({ field: 'email', op: 'starts_with', value: 'bob@' }, bob), true);
  assert.equal(is({ field: 'email', op: 'ends_with', value: '.org' }, bob), false);
  assert.equal(is({ field: 'last_name', op: 'contains', value: '' }, ada), false, 'missing never contains');
  assert.equal(is({ field: 'email', op: 'in', value: ['x@y.z', 'bob@example.net'] }, bob), true);
  assert.equal(is({ field: 'first_name', op: 'exists' }, bob), true, 'an empty string exists');
  assert.equal(is({ field: 'first_name', op: 'is_empty' }, bob), true);
  assert.equal(is({ field: 'last_name', op: 'is_empty' }, ada), true);
  assert.equal(is({ field: 'last_name', op: 'exists' }, ada), false);
  assert.equal(is({ field: 'properties.plan', op: 'eq', value: 'Pro' }, ada), true);
});

test('numbers compare as numbers, booleans by eq and neq, dates as instants', () => {
  assert.equal(is({ field: 'properties.seats', op: 'gt', value: 2 }, ada), true);
  assert.equal(is({ field: 'properties.seats', op: 'gte', value: 3 }, ada), true);
  assert.equal(is({ field: 'properties.seats', op: 'lt', value: 3 }, ada), false);
  assert.equal(is({ field: 'properties.seats', op: 'lte', value: 3 }, ada), true);
  assert.equal(is({ field: 'properties.seats', op: 'in', value: [1, 3] }, ada), true);
  assert.equal(
    is({ field: 'properties.seats', op: 'lt', value: 100 }, bob),
    false,
    'missing is not less than anything',
  );
  assert.equal(is({ field: 'properties.seats', op: 'is_empty' }, bob), true);
  assert.equal(is({ field: 'unsubscribed', op: 'eq', value: true }, bob), true);
  assert.equal(is({ field: 'unsubscribed', op: 'neq', value: true }, ada), true);
  assert.equal(is({ field: 'created_at', op: 'lt', value: '2026-04-01' }, ada), true);
  assert.equal(is({ field: 'created_at', op: 'gte', value: '2026-04-01T00:00:00Z' }, bob), true);
  assert.equal(is({ field: 'created_at', op: 'eq', value: '2026-03-01T10:00:00Z' }, ada), true);
});

test('and, or and not combine rules; database leaves go to the external evaluator', () => {
  const rule = {
    or: [
      {
        and: [
          { field: 'properties.plan', op: 'eq', value: 'Pro' },
          { not: { field: 'unsubscribed', op: 'eq', value: true } },
        ],
      },
      { field: 'last_name', op: 'eq', value: 'Builder' },
    ],
  };
  assert.equal(is(rule, ada), true);
  assert.equal(is(rule, bob), true);
  assert.equal(is({ and: [rule, { field: 'email', op: 'ends_with', value: '.net' }] }, ada), false);
  const withTopic = parseFilter(
    { and: [{ topic: '0A000000-0000-4000-8000-000000000000' }, { engagement: 'opened', within_days: 30 }] },
    ctx,
  );
  assert.deepEqual(withTopic, {
    and: [
      { topic: '0a000000-0000-4000-8000-000000000000', subscribed: true },
      { engagement: 'opened', within_days: 30 },
    ],
  });
  const seen: unknown[] = [];
  assert.equal(
    matches(withTopic, ada, (leaf) => {
      seen.push(leaf);
      return true;
    }),
    true,
  );
  assert.equal(seen.length, 2);
  assert.throws(() => matches(withTopic, ada), /external evaluator/);
});

test('validation errors name the path of the bad part', () => {
  refused(
    {
      and: [
        { field: 'email', op: 'eq', value: 'a' },
        { field: 'email', op: 'like', value: 'a' },
      ],
    },
    /^Invalid `filter\.and\[1\]\.op` field: must be one of eq/,
  );
  refused(
    { field: 'properties.nope', op: 'eq', value: 'x' },
    /`filter\.field` field: no contact property has the key "nope"/,
  );
  refused({ field: 'phone', op: 'eq', value: 'x' }, /`filter\.field`/);
  refused({ field: 'properties.seats', op: 'eq', value: '3' }, /`filter\.value` field: must be a number/);
  refused(
    { field: 'properties.seats', op: 'contains', value: 3 },
    /`filter\.op` field: "contains" does not apply to properties\.seats \(a number\)/,
  );
  refused({ field: 'first_name', op: 'gt', value: 'a' }, /`filter\.op`/);
  refused({ field: 'unsubscribed', op: 'eq', value: 'yes' }, /`filter\.value` field: must be true or false/);
  refused({ field: 'created_at', op: 'gt', value: 'last week' }, /`filter\.value` field: must be an ISO 8601/);
  refused({ field: 'email', op: 'exists', value: true }, /`filter\.value` field: "exists" takes no value/);
  refused({ field: 'email', op: 'eq' }, /`filter\.value` field: is required/);
  refused({ field: 'email', op: 'in', value: [] }, /`filter\.value`/);
  refused({ or: [{ field: 'email', op: 'in', value: ['a', 2] }] }, /`filter\.or\[0\]\.value\[1\]`/);
  refused({ or: [] }, /`filter\.or` field: must be a non-empty array/);
  refused({ not: { engagement: 'read' } }, /`filter\.not\.engagement`/);
  refused({ engagement: 'opened', within_days: 0 }, /`filter\.within_days`/);
  refused({ topic: 'news' }, /`filter\.topic` field: must be a topic id/);
  refused({ field: 'email', op: 'eq', value: 'a', extra: 1 }, /`filter\.extra` field: is not a field of this rule/);
  refused([], /`filter` field: must be a rule object/);
});

test('depth and size are bounded', () => {
  let deep: Rule = { field: 'email', op: 'exists' };
  for (let i = 0; i < LIMITS.depth; i++) deep = { not: deep }; // the leaf is level 7
  refused(deep, /nest at most/);
  const wide = { or: Array.from({ length: LIMITS.rules }, () => ({ field: 'email', op: 'exists' })) };
  refused(wide, /at most 50 rules/);
  refused(
    { field: 'email', op: 'in', value: Array.from({ length: LIMITS.inValues + 1 }, (_, i) => `a${i}`) },
    /1 to 100 values/,
  );
  assert.doesNotThrow(() => parseFilter({ or: wide.or.slice(1) }, ctx));
});

test('impossible dates are refused naming the rule: no such day, year 0000, an offset PostgreSQL refuses', () => {
  refused(
    { field: 'created_at', op: 'gt', value: '2026-02-31' },
    /`filter\.value` field: must be a date PostgreSQL accepts: 2026-02 has no day 31/,
  );
  refused(
    {
      and: [
        { field: 'email', op: 'exists' },
        { field: 'created_at', op: 'lt', value: '0000-01-01' },
      ],
    },
    /`filter\.and\[1\]\.value`.*year must be from 0001/,
  );
  refused(
    { field: 'created_at', op: 'eq', value: '2026-01-01T00:00:00-23:59' },
    /`filter\.value`.*UTC offset must be within ±15:59/,
  );
  assert.equal(
    is({ field: 'created_at', op: 'lt', value: '2026-03-01T10:00:00+15:59' }, ada),
    false,
    'an offset PostgreSQL takes is read as it reads it',
  );
  assert.equal(is({ field: 'created_at', op: 'lt', value: '2026-03-01T10:00:00-15:59' }, ada), true);
});

test('a stored rule with an impossible date (accepted by older versions) is refused alike by the in-memory and the SQL evaluator', () => {
  const stored = {
    or: [{ field: 'email', op: 'exists' }, { not: { field: 'created_at', op: 'gt', value: '2026-02-31T00:00:00Z' } }],
  } as Rule;
  const inMemory = (() => {
    try {
      matches(stored, ada);
    } catch (e) {
      return e;
    }
  })() as AppError;
  const inSql = (() => {
    try {
      filterSql(stored, new Map(), []);
    } catch (e) {
      return e;
    }
  })() as AppError;
  for (const e of [inMemory, inSql]) {
    assert.ok(e instanceof AppError && e.status === 422, String(e));
    assert.match(
      e.message,
      /filter cannot be evaluated: `filter\.or\[1\]\.not\.value` is "2026-02-31T00:00:00Z": 2026-02 has no day 31\. Change the filter/,
    );
  }
  assert.equal(inMemory.message, inSql.message);
  const fine = parseFilter({ field: 'created_at', op: 'gt', value: '2026-02-28' }, ctx);
  assert.doesNotThrow(() => filterSql(fine, new Map(), []));
  assert.equal(matches(fine, ada), true);
});
