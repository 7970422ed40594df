// The two evaluators of a segment filter must agree: the SQL one (store/segment-filter.ts
// filterSql, which pages segments and expands broadcasts) and the in-memory one
// (contacts/filter.ts matches, which answers a contact's segments and automations' conditions).
// A property test: seeded random contacts in a real PostgreSQL and seeded random filters (every
// field type and op, nested and/or/not, values on the data's edges), each evaluated both ways.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { matches, parseFilter, type FilterContact } from '../../src/contacts/filter.js';
import { AppError } from '../../src/errors.js';
import { filterSql } from '../../src/store/segment-filter.js';
import { freshDatabase, type TestDatabase } from '../helpers/db.js';
import { prng } from '../helpers/prng.js';

const rnd = prng(2411);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
const team = randomUUID();
const CONTACTS = 160;
const FILTERS = 600;

const NAMES = ['Ann', 'ann', 'ANNA', 'Bob', 'bo', 'Élodie', 'Zoë', '', null] as const;
const PLANS = ['pro', 'Pro', 'pro-team', 'free', 'enterprise', '', null, undefined] as const;
const SEATS = [0, 1, 5, 5.5, 12, -3, 1000, null, undefined] as const;
const BASE = Date.parse('2026-03-01T00:00:00Z');
const DATES = Array.from({ length: 12 }, (_, i) => new Date(BASE + i * 3_600_000 * 7).toISOString());

let db: TestDatabase;
let contacts: FilterContact[] = [];
const props = new Map<string, 'string' | 'number'>([
  ['plan', 'string'],
  ['seats', 'number'],
]);

before(async () => {
  db = await freshDatabase();
  await db.pool.query("INSERT INTO teams (id, name) VALUES ($1, 'Twins')", [team]);
  for (let i = 0; i < CONTACTS; i++) {
    const properties: Record<string, unknown> = {};
    const plan = pick(PLANS);
    if (plan !== undefined) properties.plan = plan;
    const seats = pick(SEATS);
    if (seats !== undefined) properties.seats = seats;
    await db.pool.query(
      `INSERT INTO contacts (id, team_id, email, first_name, last_name, unsubscribed, properties, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, now())`,
      [
        team,
        `${pick(['a', 'B', 'c.d', 'ann'])}${i}@${pick(['x.test', 'Y.test'])}`,
        pick(NAMES),
        pick(NAMES),
        rnd() < 0.3,
        properties,
        pick(DATES),
      ],
    );
  }
  const { rows } = await db.pool.query(
    'SELECT email, first_name, last_name, unsubscribed, created_at, properties FROM contacts WHERE team_id = $1',
    [team],
  );
  contacts = rows;
});
after(async () => {
  await db?.drop();
});

const STRING_FIELDS = ['email', 'first_name', 'last_name', 'properties.plan'];
const STRING_OPS = ['eq', 'neq', 'in', 'contains', 'starts_with', 'ends_with', 'exists', 'is_empty'];
const NUMBER_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'is_empty'];
const DATE_OPS = ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'];
const WORDS = ['ann', 'A', 'pro', 'PRO', 'team', 'x.test', 'b', '', 'é', 'zoë', 'nobody'];

function leaf(): unknown {
  const kind = pick(['string', 'string', 'number', 'boolean', 'date'] as const);
  if (kind === 'string') {
    const op = pick(STRING_OPS);
    const field = pick(STRING_FIELDS);
    if (op === 'exists' || op === 'is_empty') return { field, op };
    if (op === 'in') return { field, op, value: [pick(WORDS), pick(NAMES) ?? 'Bob', pick(PLANS) ?? 'pro'] };
    return { field, op, value: pick([...WORDS, 'Ann', 'Bob', 'pro-team']) };
  }
  if (kind === 'number') {
    const op = pick(NUMBER_OPS);
    if (op === 'exists' || op === 'is_empty') return { field: 'properties.seats', op };
    const n = () => pick([0, 1, 5, 5.5, 6, 12, -3, 999, 1000]);
    return { field: 'properties.seats', op, value: op === 'in' ? [n(), n()] : n() };
  }
  if (kind === 'boolean') return { field: 'unsubscribed', op: pick(['eq', 'neq']), value: rnd() < 0.5 };
  const at = pick(DATES);
  const value = pick([at, at.slice(0, 10), new Date(Date.parse(at) + 1000).toISOString(), at.replace('Z', '+02:00')]);
  return { field: 'created_at', op: pick(DATE_OPS), value };
}

function filter(depth: number): unknown {
  if (depth >= 3 || rnd() < 0.45) return leaf();
  const k = pick(['and', 'or', 'not'] as const);
  if (k === 'not') return { not: filter(depth + 1) };
  return { [k]: Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => filter(depth + 1)) };
}

test(`SQL and in-memory evaluators select the same contacts for ${FILTERS} generated filters`, async () => {
  let evaluated = 0;
  let refused = 0;
  const selectedSizes = new Set<number>();
  for (let i = 0; i < FILTERS; i++) {
    const raw = filter(0);
    let rule;
    try {
      rule = parseFilter(raw, { properties: props });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      refused++; // an op the field's type does not take: refused at the edge, evaluated by neither
      continue;
    }
    const params: unknown[] = [team];
    const where = filterSql(rule, new Map(), params);
    const { rows } = await db.pool.query<{ email: string }>(
      `SELECT email FROM contacts WHERE team_id = $1 AND ${where} ORDER BY email`,
      params,
    );
    const inSql = rows.map((r) => r.email);
    const inMemory = contacts
      .filter((c) => matches(rule, c))
      .map((c) => c.email)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.deepEqual(inMemory, inSql, `filter ${JSON.stringify(raw)}`);
    evaluated++;
    selectedSizes.add(inSql.length);
  }
  assert.ok(
    evaluated >= FILTERS * 0.7,
    `${evaluated} of ${FILTERS} filters evaluated (${refused} refused at the edge)`,
  );
  assert.ok(
    selectedSizes.size > 20,
    `the filters select many different sets (${selectedSizes.size} sizes): not all or nothing`,
  );
});
