// The SQL form of a parsed filter (contacts/filter.ts): a condition on the row `contacts`, every
// value a parameter. Identifiers in the SQL come from code constants only (fields, event types).
// Same semantics as filter.matches(): missing values fail every op but neq, exists and is_empty; a
// stored rule neither can evaluate (lib/filter-rule.ts ruleUnevaluable) is the same 422 from both.
import { AppError } from '../errors.js';
import { ruleUnevaluable, type EngagementRule, type FieldRule, type Rule } from '../lib/filter-rule.js';
import type { Queryable } from './db.js';

const COLUMNS: Record<string, string> = {
  email: 'contacts.email',
  first_name: 'contacts.first_name',
  last_name: 'contacts.last_name',
  unsubscribed: 'contacts.unsubscribed',
  created_at: 'contacts.created_at',
};
const EVENT: Record<EngagementRule['engagement'], string> = {
  delivered: "'email.delivered'",
  opened: "'email.opened'",
  clicked: "'email.clicked'",
  bounced: "'email.bounced'",
  complained: "'email.complained'",
};
const CMP: Record<string, string> = { eq: '=', gt: '>', gte: '>=', lt: '<', lte: '<=' };

/** Each referenced topic's default_subscription (fixed at creation); a deleted topic is absent. */
export type TopicDefaults = ReadonlyMap<string, 'opt_in' | 'opt_out'>;

export async function topicDefaultsFind(db: Queryable, teamId: string, rule: Rule | null): Promise<TopicDefaults> {
  const ids: string[] = [];
  const walk = (r: Rule): void => {
    if ('and' in r) r.and.forEach(walk);
    else if ('or' in r) r.or.forEach(walk);
    else if ('not' in r) walk(r.not);
    else if ('topic' in r) ids.push(r.topic);
  };
  if (rule) walk(rule);
  if (!ids.length) return new Map();
  const { rows } = await db.query<{ id: string; default_subscription: 'opt_in' | 'opt_out' }>(
    'SELECT id, default_subscription FROM topics WHERE team_id = $1 AND id = ANY($2::uuid[])',
    [teamId, ids],
  );
  return new Map(rows.map((r) => [r.id, r.default_subscription]));
}

function fieldSql(r: FieldRule, p: (v: unknown) => string): string {
  const prop = r.field.startsWith('properties.') ? r.field.slice(11) : undefined;
  const key = prop === undefined ? '' : `${p(prop)}::text`; // one parameter, used by every form below
  const text = prop !== undefined ? `(contacts.properties ->> ${key})` : COLUMNS[r.field];
  const numeric = typeof r.value === 'number' || (Array.isArray(r.value) && typeof r.value[0] === 'number');
  // A property's number: NULL unless the stored JSON is a number (CASE guarantees no bad cast).
  const col =
    prop !== undefined && numeric
      ? `(CASE WHEN jsonb_typeof(contacts.properties -> ${key}) = 'number' THEN (contacts.properties ->> ${key})::numeric END)`
      : text;
  const cast =
    r.field === 'created_at'
      ? '::timestamptz'
      : r.field === 'unsubscribed'
        ? '::boolean'
        : numeric
          ? '::numeric'
          : '::text';
  switch (r.op) {
    case 'exists':
      return `${text} IS NOT NULL`;
    case 'is_empty':
      return `coalesce(${text}, '') = ''`;
    case 'neq':
      return `${col} IS DISTINCT FROM ${p(r.value)}${cast}`;
    case 'in':
      return `${col} = ANY(${p(r.value)}${cast}[])`;
    case 'contains':
      return `strpos(lower(${text}), lower(${p(r.value)}::text)) > 0`;
    case 'starts_with':
      return `starts_with(lower(${text}), lower(${p(r.value)}::text))`;
    case 'ends_with': {
      const v = p(r.value);
      return `right(lower(${text}), length(${v}::text)) = lower(${v}::text)`;
    }
    default:
      return `${col} ${CMP[r.op]} ${p(r.value)}${cast}`;
  }
}

/**
 * The condition for `rule`, pushing its values onto `params` ($n counts from params' length).
 * Engagement matches email_events by recipient (lowercased, as contacts' addresses are) within
 * the contact's team; the partial index email_events_engagement (migration 0016) answers it.
 */
export function filterSql(rule: Rule, topics: TopicDefaults, params: unknown[]): string {
  // A stored rule PostgreSQL cannot evaluate (an impossible date an older version accepted) is a
  // 422 for this segment alone, the same as filter.matches() throws, never a failed cast.
  const unevaluable = ruleUnevaluable(rule);
  if (unevaluable) throw new AppError('validation_error', unevaluable);
  const p = (v: unknown): string => {
    params.push(v);
    return `$${params.length}`;
  };
  const walk = (r: Rule): string => {
    if ('and' in r) return `(${r.and.map(walk).join(' AND ')})`;
    if ('or' in r) return `(${r.or.map(walk).join(' OR ')})`;
    // A leaf on a missing value is NULL in SQL and false in memory (filter.matches): alike in a
    // WHERE, but NOT NULL stays NULL, so a negation first makes unknown false (found by
    // test/store/segment-filter-twins.test.ts). Only here: positive leaves keep their indexes.
    if ('not' in r) return `(NOT coalesce(${walk(r.not)}, false))`;
    if ('field' in r) return `(${fieldSql(r, p)})`;
    if ('segment' in r)
      return `EXISTS (SELECT 1 FROM contact_segments cs WHERE cs.segment_id = ${p(r.segment)}::uuid AND cs.contact_id = contacts.id)`;
    if ('topic' in r) {
      const d = topics.get(r.topic);
      // Resend's rule: opt_in topics reach everyone without an opt_out row; opt_out topics only opt_in rows.
      const subscribed =
        d === undefined
          ? 'false'
          : `${d === 'opt_in' ? 'NOT ' : ''}EXISTS (SELECT 1 FROM contact_topics ct WHERE ct.contact_id = contacts.id AND ct.topic_id = ${p(r.topic)}::uuid AND ct.subscription = '${d === 'opt_in' ? 'opt_out' : 'opt_in'}')`;
      return r.subscribed ? `(${subscribed})` : `(NOT ${subscribed})`;
    }
    const since = r.within_days ? ` AND ev.created_at >= now() - make_interval(days => ${p(r.within_days)}::int)` : '';
    const exists = `EXISTS (SELECT 1 FROM email_events ev WHERE ev.team_id = contacts.team_id AND lower(ev.recipient) = contacts.email AND ev.type = ${EVENT[r.engagement]}${since})`;
    return r.never ? `(NOT ${exists})` : exists;
  };
  return walk(rule);
}
