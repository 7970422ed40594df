// The shapes of a filter rule tree (segments' `filter`, automations' `condition`), in their normal
// form, and the one check both evaluators make of a stored tree before evaluating it. Parsing is
// contacts/filter.ts, SQL is store/segment-filter.ts.
import { timestampProblem } from './timestamp-text.js';

export const OPS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'contains',
  'starts_with',
  'ends_with',
  'exists',
  'is_empty',
  'in',
] as const;
export type Op = (typeof OPS)[number];
export const ENGAGEMENTS = ['delivered', 'opened', 'clicked', 'bounced', 'complained'] as const;
export type Engagement = (typeof ENGAGEMENTS)[number];
export type Scalar = string | number | boolean;

export type FieldRule = { field: string; op: Op; value?: Scalar | Scalar[] };
export type TopicRule = { topic: string; subscribed: boolean };
export type EngagementRule = { engagement: Engagement; within_days?: number; never?: boolean };
export type SegmentRule = { segment: string };
export type Rule =
  | { and: Rule[] }
  | { or: Rule[] }
  | { not: Rule }
  | FieldRule
  | TopicRule
  | EngagementRule
  | SegmentRule;

/** The contact fields whose rules compare dates (a contact property is a string or a number). */
export const DATE_FIELDS: readonly string[] = ['created_at'];

/**
 * Why a stored rule cannot be evaluated, as the sentence of its 422 naming the rule's path, or
 * undefined. Parsing refuses such dates now (timestamp-text.ts), but older versions stored
 * "2026-02-31": PostgreSQL refuses the cast, so both evaluators (contacts/filter.ts matches(),
 * store/segment-filter.ts filterSql()) refuse the whole rule with this sentence instead.
 */
export function ruleUnevaluable(rule: Rule): string | undefined {
  const why = dateProblem(rule, 'filter');
  return why && `The segment's filter cannot be evaluated: ${why} Change the filter (PATCH /segments/:id).`;
}

function dateProblem(rule: Rule, path: string): string | undefined {
  if ('and' in rule || 'or' in rule) {
    const [k, list] = 'and' in rule ? ['and', rule.and] : ['or', rule.or];
    for (let i = 0; i < list.length; i++) {
      const why = dateProblem(list[i], `${path}.${k}[${i}]`);
      if (why) return why;
    }
    return undefined;
  }
  if ('not' in rule) return dateProblem(rule.not, `${path}.not`);
  if (!('field' in rule) || !DATE_FIELDS.includes(rule.field) || rule.value === undefined) return undefined;
  const values = Array.isArray(rule.value) ? rule.value : [rule.value];
  for (let i = 0; i < values.length; i++) {
    const at = Array.isArray(rule.value) ? `${path}.value[${i}]` : `${path}.value`;
    const v = values[i];
    const why = typeof v === 'string' ? timestampProblem(v) : 'must be a date string.';
    if (why) return `\`${at}\` is ${JSON.stringify(v).slice(0, 60)}: ${why}`;
  }
  return undefined;
}
