// The Contacts page's filters, held in the URL query: a search (part of an address or name) and
// filters by segment, topic, subscription and one property. Turned into the API's search
// parameters (GET /contacts, /contacts/count, /contacts/export; `match` of POST /contacts/bulk):
// the segment as segment_id, the rest as one rule of the segment filter language.
import { qs } from './api';

export const CONTACT_FILTERS = [
  'search',
  'segment',
  'topic',
  'topic_state',
  'status',
  'prop',
  'prop_op',
  'prop_value',
] as const;
export type ContactFilters = Record<(typeof CONTACT_FILTERS)[number], string>;

export const filtersOf = (query: URLSearchParams): ContactFilters =>
  Object.fromEntries(CONTACT_FILTERS.map((k) => [k, query.get(k) ?? ''])) as ContactFilters;

export const PROPERTY_OPS = [
  ['eq', 'is'],
  ['neq', 'is not'],
  ['contains', 'contains'],
  ['exists', 'has a value'],
  ['is_empty', 'is empty'],
] as const;

/** The rule tree of the filters other than search and segment, or undefined. */
export function ruleOf(f: ContactFilters, numberProps: ReadonlySet<string>): unknown {
  const rules: unknown[] = [];
  if (f.status) rules.push({ field: 'unsubscribed', op: 'eq', value: f.status === 'unsubscribed' });
  if (f.topic) rules.push({ topic: f.topic, subscribed: f.topic_state !== 'unsubscribed' });
  if (f.prop) {
    const op = f.prop_op || 'eq';
    if (op === 'exists' || op === 'is_empty') rules.push({ field: `properties.${f.prop}`, op });
    else if (f.prop_value !== '') {
      const n = Number(f.prop_value);
      const value = numberProps.has(f.prop) && f.prop_value.trim() !== '' && Number.isFinite(n) ? n : f.prop_value;
      rules.push({ field: `properties.${f.prop}`, op, value });
    }
  }
  return rules.length === 0 ? undefined : rules.length === 1 ? rules[0] : { and: rules };
}

/** The `match` of a bulk request (and, as strings, the query of the list, count and export). */
export function matchOf(f: ContactFilters, numberProps: ReadonlySet<string>) {
  const rule = ruleOf(f, numberProps);
  return {
    search: f.search.trim() || undefined,
    segment_id: f.segment || undefined,
    filter: rule === undefined ? undefined : rule,
  };
}

export function matchQuery(
  f: ContactFilters,
  numberProps: ReadonlySet<string>,
  extra: Record<string, string | number | undefined> = {},
) {
  const m = matchOf(f, numberProps);
  return qs({ ...m, filter: m.filter === undefined ? undefined : JSON.stringify(m.filter), ...extra });
}

export const isFiltered = (f: ContactFilters) =>
  CONTACT_FILTERS.some((k) => k !== 'topic_state' && k !== 'prop_op' && f[k]);

const COLUMNS_KEY = 'mailroom.contacts.columns';

/** The property columns chosen on this browser. */
export function savedColumns(): string[] {
  try {
    const v = JSON.parse(localStorage.getItem(COLUMNS_KEY) ?? '[]');
    return Array.isArray(v) ? v.filter((x) => typeof x === 'string').slice(0, 20) : [];
  } catch {
    return [];
  }
}
export function saveColumns(keys: string[]): void {
  if (keys.length) localStorage.setItem(COLUMNS_KEY, JSON.stringify(keys));
  else localStorage.removeItem(COLUMNS_KEY);
}
