// The audit log: who changed what in the team, when and from where (GET /audit-log), filtered by
// action, actor, target and time, with a CSV download of what the filters select (built by the
// server: /dashboard-api/audit-log.csv). Owners and admins; members are told they cannot read it.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, qs, type List } from '../api';
import { Empty, ErrorRetry, Loading, PageHead } from '../components/ui';
import { FilterForm } from '../components/FilterForm';
import { ago, fmtDate } from '../format';

interface Entry {
  id: string;
  seq: number;
  created_at: string;
  actor: { kind: string; id: string | null; display: string | null };
  ip: string | null;
  user_agent: string | null;
  action: string;
  target: { kind: string; id: string | null };
  summary: { before?: Record<string, unknown>; after?: Record<string, unknown> };
}

const FAMILIES = [
  ['api_key.*', 'API keys'],
  ['domain.*', 'Domains'],
  ['webhook.*', 'Webhooks'],
  ['member.*', 'Members'],
  ['team.*', 'Team security'],
  ['mfa.*', 'Two-factor'],
  ['auth.*', 'Sign-ins'],
  ['oauth_grant.*', 'OAuth grants'],
  ['broadcast.*', 'Broadcasts'],
  ['automation.*', 'Automations'],
  ['privacy.*', 'Privacy requests and retention'],
] as const;
const FILTERS = ['action', 'actor', 'target_kind', 'target_id', 'since', 'until'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

/** "before → after" of the fields that changed, or the fields recorded, in a line. */
function change(s: Entry['summary']): string {
  const b = s.before ?? {};
  const a = s.after ?? {};
  const keys = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  const show = (v: unknown) => (v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));
  return keys
    .filter((k) => JSON.stringify(b[k]) !== JSON.stringify(a[k]))
    .map((k) => (k in b && k in a ? `${k}: ${show(b[k])} → ${show(a[k])}` : `${k}: ${show(k in a ? a[k] : b[k])}`))
    .join('; ');
}

export function AuditLog({ query }: { query: URLSearchParams }) {
  const f = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Filters;
  const [rows, setRows] = useState<Entry[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string>();
  const [loaded, setLoaded] = useState(false);
  const load = async (after?: string) => {
    try {
      const r = await get<List<Entry>>(`/audit-log${qs({ ...f, limit: 50, after })}`);
      setRows((p) => (after ? [...p, ...r.data] : r.data));
      setMore(r.has_more);
      setError(undefined);
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 403
          ? 'Only owners and admins can read the audit log.'
          : (e as Error).message,
      );
      if (!after) setRows([]);
    } finally {
      setLoaded(true);
    }
  };
  useEffect(() => {
    load();
  }, [JSON.stringify(f)]);
  return (
    <>
      <PageHead
        title="Audit log"
        sub="Every administrative change to this team: who, when, from where. Entries cannot be changed or deleted."
      >
        <a class="btn" href={`/dashboard-api/audit-log.csv${qs(f)}`} download>
          Export CSV
        </a>
      </PageHead>
      <FilterForm label="Filter the audit log" keys={FILTERS}>
        <label class="inline small">
          Action{' '}
          <select name="action" value={f.action}>
            <option value="">Any action</option>
            {FAMILIES.map(([v, label]) => (
              <option key={v} value={v}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label class="inline small">
          Actor <input name="actor" placeholder="email, key name or id" defaultValue={f.actor} size={14} />
        </label>
        <label class="inline small">
          Target{' '}
          <select name="target_kind" value={f.target_kind}>
            <option value="">Any kind</option>
            {[
              'api_key',
              'domain',
              'webhook',
              'user',
              'invite',
              'team',
              'oauth_grant',
              'oauth_client',
              'broadcast',
              'automation',
            ].map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </label>
        <label class="inline small grow">
          Target id <input name="target_id" defaultValue={f.target_id} class="grow" />
        </label>
        <label class="inline small">
          Since <input name="since" type="date" defaultValue={f.since} />
        </label>
        <label class="inline small">
          Before <input name="until" type="date" defaultValue={f.until} />
        </label>
        <button class="btn">Apply</button>
      </FilterForm>
      {error && <ErrorRetry error={error} retry={() => load()} />}
      {!loaded ? (
        <Loading />
      ) : error && !rows.length ? null : rows.length === 0 ? (
        <Empty title="No entries">Changes to keys, domains, webhooks, members and sign-ins show up here.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="list" aria-label="Audit log entries">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Action</th>
                <th scope="col">Actor</th>
                <th scope="col">Target</th>
                <th scope="col">Change</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td title={fmtDate(e.created_at)} class="nowrap">
                    {ago(e.created_at)}
                  </td>
                  <td class="mono">{e.action}</td>
                  <td class="ellipsis" title={e.actor.id ?? ''}>
                    {e.actor.display ?? e.actor.kind} <span class="muted small">{e.actor.kind}</span>
                  </td>
                  <td class="ellipsis mono small" title={e.target.id ?? ''}>
                    {e.target.kind}{' '}
                    {e.target.id && e.target.id.length > 12 ? `${e.target.id.slice(0, 8)}…` : e.target.id}
                  </td>
                  <td class="ellipsis">{change(e.summary)}</td>
                  <td class="ellipsis muted small" title={e.user_agent ?? ''}>
                    {e.ip ?? '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {more && (
            <button class="btn wide" onClick={() => load(rows[rows.length - 1].id)}>
              Load more
            </button>
          )}
        </div>
      )}
    </>
  );
}
