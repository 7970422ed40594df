// A segment's `filter` against the team's rows: the property types that parsing needs, the topics
// and segments a rule names (422 naming the path when one is not the team's), and the dashboard's
// live preview (POST /segments/preview). The language itself is filter.ts.
import { invalidField } from '../errors.js';
import type { Queryable } from '../store/db.js';
import { contactPropertiesFind } from '../store/contact-properties.js';
import { filterContactsPage, segmentContactsCount } from '../store/segment-contacts.js';
import { segmentsFindMany } from '../store/segments.js';
import { topicsFindMany } from '../store/topics.js';
import { parseFilter, type FilterRefs, type Rule } from './filter.js';

/**
 * GET /segments/:id counts at most this many (then `contacts_count_capped: true`): an exact count
 * of a filter over 1M contacts took 0.9-3.5 s on the shared 2-core machine (BENCHMARKS.md), too
 * slow for a read the SDK does casually; the capped count stops once it has COUNT_CAP rows.
 */
export const COUNT_CAP = 10_000;
/** The preview is asked for on purpose: its count is exact (bounded only as a safeguard). */
const PREVIEW_COUNT_CAP = 100_000_000;
const PREVIEW_ITEMS = 10;

/** The parsed filter, every topic and segment it names checked; `self` = the segment being changed. */
export async function filterOf(
  db: Queryable,
  teamId: string,
  raw: unknown,
  self?: string,
  path = 'filter',
): Promise<Rule> {
  const properties = new Map((await contactPropertiesFind(db, teamId)).map((p) => [p.key, p.type]));
  const refs: FilterRefs = { topics: [], segments: [] };
  const rule = parseFilter(raw, { properties }, path, refs);
  if (refs.topics.length) {
    const known = new Set(
      (
        await topicsFindMany(
          db,
          teamId,
          refs.topics.map((t) => t.id),
        )
      ).map((t) => t.id),
    );
    const missing = refs.topics.find((t) => !known.has(t.id));
    if (missing) throw invalidField(missing.path, `no topic has the id ${missing.id}.`);
  }
  if (refs.segments.length) {
    const found = new Map(
      (
        await segmentsFindMany(
          db,
          teamId,
          refs.segments.map((s) => s.id),
        )
      ).map((s) => [s.id, s]),
    );
    for (const r of refs.segments) {
      const s = found.get(r.id);
      if (!s) throw invalidField(r.path, `no segment has the id ${r.id}.`);
      // Only fixed lists: a filter naming a filter segment could name itself through it.
      if (s.filter || r.id === self)
        throw invalidField(r.path, 'must be a segment of fixed members, not one with a filter.');
    }
  }
  return rule;
}

/** POST /segments/preview {filter}: how many contacts match now, and the first few (as GET /contacts lists them). */
export async function segmentPreview(db: Queryable, teamId: string, body: Record<string, unknown>) {
  if (body.filter === undefined || body.filter === null)
    throw invalidField('filter', 'is required: a rule tree to preview.');
  const filter = await filterOf(db, teamId, body.filter);
  const [n, first] = await Promise.all([
    segmentContactsCount(db, teamId, { id: '', filter }, PREVIEW_COUNT_CAP),
    filterContactsPage(db, teamId, filter, { limit: PREVIEW_ITEMS }),
  ]);
  return { object: 'segment_preview' as const, count: n.count, count_capped: n.capped, data: first.data };
}
