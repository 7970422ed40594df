// The rule builder's model of a segment filter (README "Filter segments"): a group of rows joined
// by "all"/"any", holding rows or groups of rows (one level of nesting), turned into the API's rule
// tree and back, described in words for readers, and a 422's path mapped to the row it names.
// The server validates; this file only shapes what the user typed.

export type Join = 'and' | 'or';
export type RowKind = 'field' | 'topic' | 'engagement';
export interface Row {
  kind: 'row';
  key: number;
  type: RowKind;
  field: string;
  op: string;
  value: string;
  topic: string;
  subscribed: boolean;
  engagement: string;
  withinDays: string;
  never: boolean;
}
export interface Group {
  kind: 'group';
  key: number;
  join: Join;
  items: (Row | Group)[];
}
export type Rule = Record<string, unknown>;
export interface PropertyDef {
  key: string;
  type: 'string' | 'number';
}
export type FieldType = 'string' | 'number' | 'boolean' | 'date';

export const BASE_FIELDS: [string, string, FieldType][] = [
  ['email', 'Email', 'string'],
  ['first_name', 'First name', 'string'],
  ['last_name', 'Last name', 'string'],
  ['unsubscribed', 'Unsubscribed from all mail', 'boolean'],
  ['created_at', 'Created', 'date'],
];
export const OP_WORDS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  in: 'is one of',
  contains: 'contains',
  starts_with: 'starts with',
  ends_with: 'ends with',
  exists: 'has a value',
  is_empty: 'is empty',
  gt: 'is more than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
};
const DATE_OP_WORDS: Record<string, string> = {
  eq: 'is',
  neq: 'is not',
  gt: 'is after',
  gte: 'is on or after',
  lt: 'is before',
  lte: 'is on or before',
};
export const OPS_BY_TYPE: Record<FieldType, string[]> = {
  string: ['eq', 'neq', 'in', 'contains', 'starts_with', 'ends_with', 'exists', 'is_empty'],
  number: ['eq', 'neq', 'in', 'gt', 'gte', 'lt', 'lte', 'exists', 'is_empty'],
  boolean: ['eq'],
  date: ['gt', 'gte', 'lt', 'lte', 'eq', 'neq'],
};
export const opWord = (op: string, type: FieldType) =>
  (type === 'date' ? DATE_OP_WORDS[op] : undefined) ?? OP_WORDS[op] ?? op;
export const ENGAGEMENTS = ['opened', 'clicked', 'delivered', 'bounced', 'complained'] as const;
export const NO_VALUE = new Set(['exists', 'is_empty']);

let keys = 0;
export const nextKey = () => ++keys;
export const newRow = (type: RowKind = 'field'): Row => ({
  kind: 'row',
  key: nextKey(),
  type,
  field: 'email',
  op: 'ends_with',
  value: '',
  topic: '',
  subscribed: true,
  engagement: 'opened',
  withinDays: '30',
  never: false,
});
export const newGroup = (join: Join = 'and', items: (Row | Group)[] = [newRow()]): Group => ({
  kind: 'group',
  key: nextKey(),
  join,
  items,
});

export function fieldType(field: string, props: PropertyDef[]): FieldType {
  if (field.startsWith('properties.')) return props.find((p) => `properties.${p.key}` === field)?.type ?? 'string';
  return BASE_FIELDS.find(([f]) => f === field)?.[2] ?? 'string';
}

/** The value as the API wants it: numbers for number fields (text that is not a number goes as typed, for the server to name). */
function valueOf(text: string, type: FieldType, op: string): unknown {
  const one = (s: string): unknown => {
    if (type === 'boolean') return s === 'true';
    if (type === 'number' && s.trim() !== '' && Number.isFinite(Number(s))) return Number(s);
    return s;
  };
  if (op === 'in')
    return text
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map(one);
  return one(type === 'date' || type === 'number' ? text.trim() : text);
}

export function rowRule(r: Row, props: PropertyDef[]): Rule {
  if (r.type === 'topic') return { topic: r.topic, subscribed: r.subscribed };
  if (r.type === 'engagement') {
    const out: Rule = { engagement: r.engagement };
    if (r.withinDays.trim() !== '')
      out.within_days = Number.isFinite(Number(r.withinDays)) ? Number(r.withinDays) : r.withinDays;
    if (r.never) out.never = true;
    return out;
  }
  const type = fieldType(r.field, props);
  return NO_VALUE.has(r.op)
    ? { field: r.field, op: r.op }
    : { field: r.field, op: r.op, value: valueOf(r.value, type, r.op) };
}

/** The API's rule tree for a group; undefined while it has no rule (the server refuses an empty list). */
export function toFilter(g: Group, props: PropertyDef[]): Rule | undefined {
  const items = g.items
    .map((i) => (i.kind === 'row' ? rowRule(i, props) : toFilter(i, props)))
    .filter((x): x is Rule => x !== undefined);
  return items.length ? { [g.join]: items } : undefined;
}

const isObj = (v: unknown): v is Rule => typeof v === 'object' && v !== null && !Array.isArray(v);

function rowFrom(r: Rule): Row | undefined {
  const row = newRow();
  if (typeof r.topic === 'string') return { ...row, type: 'topic', topic: r.topic, subscribed: r.subscribed !== false };
  if (typeof r.engagement === 'string') {
    return {
      ...row,
      type: 'engagement',
      engagement: r.engagement,
      withinDays: typeof r.within_days === 'number' ? String(r.within_days) : '',
      never: r.never === true,
    };
  }
  if (typeof r.field === 'string' && typeof r.op === 'string') {
    const v = r.value;
    const text = Array.isArray(v) ? v.join(', ') : v === undefined || v === null ? '' : String(v);
    return { ...row, type: 'field', field: r.field, op: r.op, value: text };
  }
  return undefined;
}

/** The builder's model of a stored filter, or undefined when the tree is more than the builder shows (use JSON). */
export function fromFilter(f: unknown, depth = 0): Group | undefined {
  if (!isObj(f)) return undefined;
  const join = Array.isArray(f.and) ? 'and' : Array.isArray(f.or) ? 'or' : undefined;
  if (!join) {
    const row = depth === 0 ? rowFrom(f) : undefined;
    return row ? newGroup('and', [row]) : undefined;
  }
  const items: (Row | Group)[] = [];
  for (const x of f[join] as unknown[]) {
    if (!isObj(x)) return undefined;
    const sub = Array.isArray(x.and) || Array.isArray(x.or);
    const item = sub ? (depth === 0 ? fromFilter(x, 1) : undefined) : rowFrom(x);
    if (!item) return undefined;
    items.push(item);
  }
  return newGroup(join, items);
}

/** A rule in words ("Email ends with @example.com", "Never clicked"), for pages that only show it. */
export function describe(
  r: unknown,
  names: { topics: Map<string, string>; segments: Map<string, string> },
  props: PropertyDef[],
): string {
  if (!isObj(r)) return String(r);
  const list = (k: Join) =>
    (r[k] as unknown[])
      .map((x) => {
        const s = describe(x, names, props);
        return isObj(x) && (x.and || x.or) ? `(${s})` : s;
      })
      .join(k === 'and' ? ' and ' : ' or ');
  if (Array.isArray(r.and)) return list('and');
  if (Array.isArray(r.or)) return list('or');
  if (r.not !== undefined) return `not (${describe(r.not, names, props)})`;
  if (typeof r.topic === 'string')
    return `${r.subscribed === false ? 'Not subscribed' : 'Subscribed'} to topic "${names.topics.get(r.topic) ?? r.topic}"`;
  if (typeof r.segment === 'string') return `In segment "${names.segments.get(r.segment) ?? r.segment}"`;
  if (typeof r.engagement === 'string') {
    const when =
      typeof r.within_days === 'number' ? ` in the last ${r.within_days} day${r.within_days === 1 ? '' : 's'}` : '';
    return r.never
      ? `Not ${r.engagement}${when || ' ever'}`
      : `${r.engagement[0].toUpperCase()}${r.engagement.slice(1)}${when}`;
  }
  if (typeof r.field === 'string') {
    const type = fieldType(r.field, props);
    const name = BASE_FIELDS.find(([f]) => f === r.field)?.[1] ?? r.field.replace(/^properties\./, '');
    const value =
      r.value === undefined
        ? ''
        : ` ${Array.isArray(r.value) ? r.value.map((v) => JSON.stringify(v)).join(', ') : JSON.stringify(r.value)}`;
    return `${name} ${opWord(String(r.op), type)}${value}`;
  }
  return JSON.stringify(r);
}

/** The path a 422 names (``Invalid `filter.and[1].op` field: ...``), or undefined. */
export const errorPath = (message: string) => /`(filter(?:[.[][^`]*)?)`/.exec(message)?.[1];

/** Whether an error at `path` belongs to the rule at `at` (the rule itself or something inside it). */
export const pathWithin = (path: string, at: string) =>
  path === at || path.startsWith(`${at}.`) || path.startsWith(`${at}[`);

const PART_WORDS: Record<string, string> = {
  value: 'value',
  op: 'operator',
  field: 'field',
  topic: 'topic',
  subscribed: 'subscription',
  engagement: 'event',
  within_days: 'number of days',
  never: 'never',
};
/**
 * A 422 about a rule, worded for the row it is shown beside: ``Invalid `filter.and[1].value`
 * field: must be a number`` at row `filter.and[1]` reads "Check the value: must be a number".
 */
export function rowErrorText(message: string, errPath: string, rowPath: string): string {
  const rest = message.replace(/^Invalid `[^`]+` field:\s*/, '').replace(/`([^`]+)`/g, '“$1”');
  const part = errPath.slice(rowPath.length).replace(/^\./, '').split(/[.[]/)[0];
  return `Check the ${PART_WORDS[part] ?? 'rule'}: ${rest}`;
}
