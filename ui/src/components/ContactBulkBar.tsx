// Bulk actions on the Contacts page: on the chosen rows, or on every contact the filters match
// (POST /contacts/bulk; a large set runs as a job, polled until it ends). Add to a segment, set a
// topic subscription, unsubscribe, delete (confirmed with the count), export CSV (GET /contacts/export).
import { useEffect, useRef, useState } from 'preact/hooks';
import { get, post, qs } from '../api';
import { num } from '../format';
import { useAction } from '../hooks';
import { Alert } from './ui';
import type { Named } from './ContactFilters';

interface BulkResult {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  matched: number;
  processed: number;
  changed: number;
  error: string | null;
}

const DONE: Record<string, string> = {
  add_to_segment: 'added to the segment',
  set_topic: 'changed topic subscription',
  unsubscribe: 'unsubscribed',
  delete: 'deleted',
};
const EXPORT_IDS_MAX = 200;

export function ContactBulkBar(props: {
  /** ids of the chosen rows; `all`: every contact the filters match instead */
  selected: string[];
  all: boolean;
  total: number | undefined;
  match: { search?: string; segment_id?: string; filter?: unknown };
  exportQuery: string;
  columns: string[];
  segments: Named[]; // fixed lists only: a filter segment has no members to add
  topics: Named[];
  /** the operation ended (the page reloads), or says how far it got: `note` for the page to show */
  onDone: (note: string) => void;
  onNote: (note: string | undefined) => void;
  /** members: export only */
  readOnly?: boolean;
}) {
  const n = props.all ? (props.total ?? 0) : props.selected.length;
  const [segment, setSegment] = useState('');
  const [topic, setTopic] = useState('');
  const [subscription, setSubscription] = useState<'opt_in' | 'opt_out'>('opt_out');
  const polling = useRef(0);
  useEffect(() => () => void (polling.current = -1), []);

  const setNote = props.onNote;
  const finished = (action: string, r: BulkResult) => {
    props.onDone(
      r.status === 'failed'
        ? `The operation failed: ${r.error ?? 'unknown error'}`
        : `${num(r.changed)} of ${num(r.matched)} contact${r.matched === 1 ? '' : 's'} ${DONE[action]}${r.changed < r.matched ? ' (the others already were)' : ''}.`,
    );
  };
  const run = useAction(async (action: string, extra: Record<string, unknown> = {}) => {
    if (action === 'delete' && !confirm(`Delete ${num(n)} contact${n === 1 ? '' : 's'}? This cannot be undone.`))
      return;
    setNote(undefined);
    const body = { action, ...extra, ...(props.all ? { match: props.match } : { contacts: props.selected }) };
    const r = await post<BulkResult>('/contacts/bulk', body);
    if (r.status === 'completed' || r.status === 'failed') return finished(action, r);
    setNote(`Working through ${num(r.matched)} contacts in the background…`);
    const mine = ++polling.current;
    for (let i = 0; i < 600 && polling.current === mine; i++) {
      await new Promise((ok) => setTimeout(ok, 1000));
      const s = await get<BulkResult>(`/contacts/bulk/${r.id}`);
      if (s.status === 'completed' || s.status === 'failed') return finished(action, s);
      setNote(`Working: ${num(s.processed)} of ${num(s.matched)} contacts…`);
    }
  });

  const exportHref = props.all
    ? `/contacts/export${props.exportQuery}`
    : props.selected.length <= EXPORT_IDS_MAX
      ? `/contacts/export${qs({ ids: props.selected.join(','), properties: props.columns.join(',') || undefined })}`
      : undefined;

  return (
    <section class="card bulk-bar" aria-label="Bulk actions">
      <div class="inline-form">
        <strong data-testid="bulk-count">
          {num(n)} contact{n === 1 ? '' : 's'} {props.all ? 'matching' : 'chosen'}
        </strong>
        {exportHref ? (
          <a class="btn sm" href={exportHref} download="contacts.csv">
            Export CSV
          </a>
        ) : (
          <span class="small muted">Export: choose at most {EXPORT_IDS_MAX}, or all matching</span>
        )}
        {!props.readOnly && (
          <>
            <button class="btn sm" disabled={run.busy || !n} onClick={() => run.run('unsubscribe')}>
              Unsubscribe
            </button>
            <button class="btn sm bad" disabled={run.busy || !n} onClick={() => run.run('delete')}>
              Delete
            </button>
          </>
        )}
      </div>
      {!props.readOnly && (
        <div class="inline-form">
          <label class="inline small">
            Segment{' '}
            <select value={segment} onChange={(e) => setSegment(e.currentTarget.value)} aria-label="Segment to add to">
              <option value="">Choose…</option>
              {props.segments.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </label>
          <button
            class="btn sm"
            disabled={run.busy || !n || !segment}
            onClick={() => run.run('add_to_segment', { segment_id: segment })}
          >
            Add to segment
          </button>
          {props.topics.length > 0 && (
            <>
              <label class="inline small">
                Topic{' '}
                <select value={topic} onChange={(e) => setTopic(e.currentTarget.value)} aria-label="Topic to set">
                  <option value="">Choose…</option>
                  {props.topics.map((t) => (
                    <option key={t.id} value={t.id}>
                      {t.name}
                    </option>
                  ))}
                </select>
              </label>
              <select
                value={subscription}
                onChange={(e) => setSubscription(e.currentTarget.value as 'opt_in' | 'opt_out')}
                aria-label="Topic subscription to set"
              >
                <option value="opt_in">Opt in</option>
                <option value="opt_out">Opt out</option>
              </select>
              <button
                class="btn sm"
                disabled={run.busy || !n || !topic}
                onClick={() => run.run('set_topic', { topic_id: topic, subscription })}
              >
                Set topic
              </button>
            </>
          )}
        </div>
      )}
      {run.error && <Alert>{run.error}</Alert>}
    </section>
  );
}
