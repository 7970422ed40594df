// The filter language of rule-based segments (and the automations' `condition` step): parsing and
// validation of a rule tree into its normal form, with Resend-shaped 422s naming the path, and an
// in-memory evaluator. Pure: no database; the SQL form of the same semantics is store/segment-filter.ts.
import { AppError, invalidField } from '../errors.js';
import {
  ENGAGEMENTS,
  OPS,
  ruleUnevaluable,
  type Engagement,
  type EngagementRule,
  type FieldRule,
  type Op,
  type Rule,
  type Scalar,
  type SegmentRule,
  type TopicRule,
} from '../lib/filter-rule.js';
import { isTimestampForm, timestampMs, timestampProblem, timestampText } from '../lib/timestamp-text.js';

export * from '../lib/filter-rule.js';
export type FieldType = 'string' | 'number' | 'boolean' | 'date';

export const LIMITS = { depth: 6, rules: 50, inValues: 100, stringLength: 1000, withinDays: 3650 } as const;

/** The contact fields a rule can name; `properties.<key>` takes its type from the team's contact properties. */
const FIELDS: Record<string, FieldType> = {
  email: 'string',
  first_name: 'string',
  last_name: 'string',
  unsubscribed: 'boolean',
  created_at: 'date',
};
/** Which ops each type allows: ordering only on numbers and dates (string order differs between SQL collations and JS). */
const ALLOWED: Record<FieldType, readonly Op[]> = {
  string: ['eq', 'neq', 'in', 'contains', 'starts_with', 'ends_with', 'exists', 'is_empty'],
  number: ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'exists', 'is_empty'],
  boolean: ['eq', 'neq'],
  date: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'],
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Dates: ISO 8601, or the Postgres text form the API itself returns ("2026-03-01 10:00:00.123456+00"),
// read by lib/timestamp-text.ts (only what PostgreSQL reads as the same instant).
export const instantText = timestampText;
export const instantOf = timestampMs;

export interface FilterContext {
  /** The team's contact properties, key → type. */
  properties: ReadonlyMap<string, 'string' | 'number'>;
}

/** Ids the rule names, with their paths, for the caller to check against the team's rows. */
export interface FilterRefs {
  topics: { id: string; path: string }[];
  segments: { id: string; path: string }[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The type of a field name, or a 422 naming `path` (unknown property keys included). */
export function fieldType(field: string, ctx: FilterContext, path: string): FieldType {
  if (field.startsWith('properties.')) {
    const t = ctx.properties.get(field.slice('properties.'.length));
    if (!t)
      throw invalidField(
        path,
        `no contact property has the key "${field.slice(11, 61)}"; create it first (POST /contact-properties).`,
      );
    return t;
  }
  const t = Object.hasOwn(FIELDS, field) ? FIELDS[field] : undefined;
  if (!t) throw invalidField(path, `must be one of ${Object.keys(FIELDS).join(', ')} or properties.<key>.`);
  return t;
}

function scalarOf(v: unknown, type: FieldType, path: string): Scalar {
  if (type === 'number') {
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw invalidField(path, 'must be a number (the property is a number).');
    return v;
  }
  if (type === 'boolean') {
    if (typeof v !== 'boolean') throw invalidField(path, 'must be true or false.');
    return v;
  }
  if (typeof v !== 'string')
    throw invalidField(path, type === 'date' ? 'must be an ISO 8601 date or timestamp string.' : 'must be a string.');
  if (v.length > LIMITS.stringLength) throw invalidField(path, `must be at most ${LIMITS.stringLength} characters.`);
  if (type === 'date') {
    if (!isTimestampForm(v)) throw invalidField(path, 'must be an ISO 8601 date or timestamp string.');
    const why = timestampProblem(v);
    if (why) throw invalidField(path, `must be a date PostgreSQL accepts: ${why}`);
    return instantText(v);
  }
  return v;
}

function onlyKeys(o: Record<string, unknown>, keys: string[], path: string): void {
  const extra = Object.keys(o).find((k) => !keys.includes(k));
  if (extra !== undefined)
    throw invalidField(`${path}.${extra.slice(0, 50)}`, `is not a field of this rule (expected ${keys.join(', ')}).`);
}

/**
 * Validates `raw` (the wire form) and returns its normal form: ids lowercased, `subscribed`
 * defaulted to true, nothing else changed. `path` names the field in error messages ("filter").
 */
export function parseFilter(
  raw: unknown,
  ctx: FilterContext,
  path = 'filter',
  refs: FilterRefs = { topics: [], segments: [] },
): Rule {
  let count = 0;
  const walk = (v: unknown, p: string, depth: number): Rule => {
    if (!isObj(v))
      throw invalidField(
        p,
        'must be a rule object: {field, op, value}, {and: [...]}, {or: [...]}, {not: rule}, {topic}, {engagement} or {segment}.',
      );
    if (++count > LIMITS.rules) throw invalidField(p, `a filter has at most ${LIMITS.rules} rules.`);
    if (depth > LIMITS.depth) throw invalidField(p, `rules nest at most ${LIMITS.depth} deep.`);
    for (const k of ['and', 'or'] as const) {
      if (!(k in v)) continue;
      onlyKeys(v, [k], p);
      const list = v[k];
      if (!Array.isArray(list) || list.length === 0)
        throw invalidField(`${p}.${k}`, 'must be a non-empty array of rules.');
      const out = list.map((x, i) => walk(x, `${p}.${k}[${i}]`, depth + 1));
      return k === 'and' ? { and: out } : { or: out };
    }
    if ('not' in v) {
      onlyKeys(v, ['not'], p);
      return { not: walk(v.not, `${p}.not`, depth + 1) };
    }
    if ('topic' in v) {
      onlyKeys(v, ['topic', 'subscribed'], p);
      if (typeof v.topic !== 'string' || !UUID.test(v.topic)) throw invalidField(`${p}.topic`, 'must be a topic id.');
      if (v.subscribed !== undefined && typeof v.subscribed !== 'boolean')
        throw invalidField(`${p}.subscribed`, 'must be true or false.');
      refs.topics.push({ id: v.topic.toLowerCase(), path: `${p}.topic` });
      return { topic: v.topic.toLowerCase(), subscribed: v.subscribed !== false };
    }
    if ('segment' in v) {
      onlyKeys(v, ['segment'], p);
      if (typeof v.segment !== 'string' || !UUID.test(v.segment))
        throw invalidField(`${p}.segment`, 'must be a segment id.');
      refs.segments.push({ id: v.segment.toLowerCase(), path: `${p}.segment` });
      return { segment: v.segment.toLowerCase() };
    }
    if ('engagement' in v) {
      onlyKeys(v, ['engagement', 'within_days', 'never'], p);
      if (!ENGAGEMENTS.includes(v.engagement as never))
        throw invalidField(`${p}.engagement`, `must be one of ${ENGAGEMENTS.join(', ')}.`);
      const out: EngagementRule = { engagement: v.engagement as Engagement };
      if (v.within_days !== undefined) {
        const d = v.within_days;
        if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > LIMITS.withinDays)
          throw invalidField(`${p}.within_days`, `must be a whole number of days from 1 to ${LIMITS.withinDays}.`);
        out.within_days = d;
      }
      if (v.never !== undefined) {
        if (typeof v.never !== 'boolean') throw invalidField(`${p}.never`, 'must be true or false.');
        if (v.never) out.never = true;
      }
      return out;
    }
    if (!('field' in v)) throw invalidField(p, 'must have one of and, or, not, field, topic, engagement or segment.');
    onlyKeys(v, ['field', 'op', 'value'], p);
    if (typeof v.field !== 'string') throw invalidField(`${p}.field`, 'must be a string.');
    const type = fieldType(v.field, ctx, `${p}.field`);
    if (!OPS.includes(v.op as never)) throw invalidField(`${p}.op`, `must be one of ${OPS.join(', ')}.`);
    const op = v.op as Op;
    if (!ALLOWED[type].includes(op))
      throw invalidField(
        `${p}.op`,
        `"${op}" does not apply to ${v.field} (a ${type}); use one of ${ALLOWED[type].join(', ')}.`,
      );
    if (op === 'exists' || op === 'is_empty') {
      if (v.value !== undefined) throw invalidField(`${p}.value`, `"${op}" takes no value.`);
      return { field: v.field, op };
    }
    if (v.value === undefined || v.value === null)
      throw invalidField(
        `${p}.value`,
        `is required for "${op}" (use "exists" or "is_empty" to test for a missing value).`,
      );
    if (op === 'in') {
      if (!Array.isArray(v.value) || v.value.length === 0 || v.value.length > LIMITS.inValues)
        throw invalidField(`${p}.value`, `must be an array of 1 to ${LIMITS.inValues} values for "in".`);
      return { field: v.field, op, value: v.value.map((x, i) => scalarOf(x, type, `${p}.value[${i}]`)) };
    }
    return { field: v.field, op, value: scalarOf(v.value, type, `${p}.value`) };
  };
  return walk(raw, path, 1);
}

/** The contact as the evaluator sees it (a ContactRow fits). */
export interface FilterContact {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  unsubscribed?: boolean;
  created_at?: string | Date;
  properties?: Record<string, string | number | null | undefined>;
}

/** Answers the leaves that need the database (topics, engagement, segments); absent = they throw. */
export type ExternalLeaf = (rule: TopicRule | EngagementRule | SegmentRule) => boolean;

function valueOf(c: FilterContact, field: string): string | number | boolean | Date | null {
  if (field.startsWith('properties.')) return c.properties?.[field.slice(11)] ?? null;
  if (field === 'created_at')
    return c.created_at === undefined
      ? null
      : new Date(typeof c.created_at === 'string' ? instantOf(c.created_at) : c.created_at);
  if (field === 'unsubscribed') return c.unsubscribed ?? false;
  return (c as unknown as Record<string, string | null>)[field] ?? null;
}

const norm = (x: Scalar | Date): string | number | boolean => (x instanceof Date ? x.getTime() : x);

function leafMatches(r: FieldRule, c: FilterContact): boolean {
  const raw = valueOf(c, r.field);
  if (r.op === 'exists') return raw !== null;
  if (r.op === 'is_empty') return raw === null || raw === '';
  const dated = raw instanceof Date;
  const want = (x: Scalar) => (dated ? instantOf(String(x)) : x);
  if (r.op === 'neq') return raw === null || norm(raw) !== want(r.value as Scalar);
  if (raw === null) return false;
  const have = norm(raw);
  const v = r.value as Scalar;
  switch (r.op) {
    case 'eq':
      return have === want(v);
    case 'in':
      return (v as unknown as Scalar[]).some((x) => have === want(x));
    case 'gt':
      return have > want(v);
    case 'gte':
      return have >= want(v);
    case 'lt':
      return have < want(v);
    case 'lte':
      return have <= want(v);
    // Substring ops ignore case (SQL: lower() on both sides).
    case 'contains':
      return String(have).toLowerCase().includes(String(v).toLowerCase());
    case 'starts_with':
      return String(have).toLowerCase().startsWith(String(v).toLowerCase());
    case 'ends_with':
      return String(have).toLowerCase().endsWith(String(v).toLowerCase());
  }
  return false;
}

function holds(rule: Rule, c: FilterContact, external?: ExternalLeaf): boolean {
  if ('and' in rule) return rule.and.every((r) => holds(r, c, external));
  if ('or' in rule) return rule.or.some((r) => holds(r, c, external));
  if ('not' in rule) return !holds(rule.not, c, external);
  if ('field' in rule) return leafMatches(rule, c);
  if (!external)
    throw new Error('this rule needs the database (topic, engagement or segment): pass an external evaluator');
  return external(rule);
}

/**
 * Whether the contact matches a parsed rule; the same answers as the SQL form, which also refuses a
 * stored rule it cannot evaluate (an impossible date an older version accepted) with the same 422.
 */
export function matches(rule: Rule, c: FilterContact, external?: ExternalLeaf): boolean {
  const unevaluable = ruleUnevaluable(rule);
  if (unevaluable) throw new AppError('validation_error', unevaluable);
  return holds(rule, c, external);
}
