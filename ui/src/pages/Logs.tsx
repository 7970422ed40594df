// API request logs: filters by status, endpoint, method and API key; a log's page shows the
// request and response bodies.
import { useEffect, useState } from 'preact/hooks';
import { get, qs, type List } from '../api';
import { Alert, Badge, Code, Empty, ErrorRetry, KV, Loading, PageHead } from '../components/ui';
import { FilterForm } from '../components/FilterForm';
import { Link } from '../components/Link';
import { ago, fmtDate } from '../format';
import { useLoad } from '../hooks';

interface LogItem {
  id: string;
  created_at: string;
  endpoint: string;
  method: string;
  response_status: number;
  user_agent: string | null;
}
interface Log extends LogItem {
  request_body: unknown;
  response_body: unknown;
  error_name: string | null;
  duration_ms: number;
  api_key_id: string | null;
}

const FILTERS = ['status', 'endpoint', 'method', 'api_key_id'] as const;
const statusTone = (s: number) => (s < 300 ? 'ok' : s < 500 ? 'warn' : 'bad');

export function Logs({ query }: { query: URLSearchParams }) {
  const f = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const keys = useLoad(() => get<List<{ id: string; name: string }>>('/api-keys'), []);
  const [rows, setRows] = useState<LogItem[]>([]);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string>();
  const [loaded, setLoaded] = useState(false);
  const load = async (after?: string) => {
    try {
      const r = await get<List<LogItem>>(`/logs${qs({ ...f, limit: 50, after })}`);
      setRows((p) => (after ? [...p, ...r.data] : r.data));
      setMore(r.has_more);
      setError(undefined);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setLoaded(true);
    }
  };
  useEffect(() => {
    load();
  }, [JSON.stringify(f)]);
  return (
    <>
      <PageHead title="Logs" sub="Every API request made with your team's keys (dashboard clicks are not logged)." />
      <FilterForm label="Filter logs" keys={FILTERS}>
        <label class="inline small grow">
          Endpoint <input name="endpoint" placeholder="/emails" defaultValue={f.endpoint} class="grow" />
        </label>
        <label class="inline small">
          HTTP status{' '}
          <input
            name="status"
            placeholder="404 or 4xx"
            defaultValue={f.status}
            size={10}
            pattern="\d{3}|[1-5][xX][xX]"
            title="An HTTP status (404) or a class (4xx)"
          />
        </label>
        <label class="inline small">
          Method{' '}
          <select name="method" value={f.method}>
            <option value="">Any method</option>
            {['GET', 'POST', 'PATCH', 'PUT', 'DELETE'].map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </label>
        <label class="inline small">
          API key{' '}
          <select name="api_key_id" value={f.api_key_id}>
            <option value="">Any key</option>
            {keys.data?.data.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </select>
        </label>
        <button class="btn">Apply</button>
      </FilterForm>
      {error && <ErrorRetry error={error} retry={() => load()} />}
      {!loaded ? (
        <Loading />
      ) : error && !rows.length ? null : rows.length === 0 ? (
        <Empty title="No requests logged">Requests made with an API key show up here within seconds.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Status</th>
                <th scope="col">Method</th>
                <th scope="col">Endpoint</th>
                <th scope="col">When</th>
                <th scope="col">User agent</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((l) => (
                <tr key={l.id}>
                  <td>
                    <span class={`badge ${statusTone(l.response_status)}`}>{l.response_status}</span>
                  </td>
                  <td class="mono">{l.method}</td>
                  <td class="ellipsis">
                    <Link href={`/logs/${l.id}`}>{l.endpoint}</Link>
                  </td>
                  <td title={fmtDate(l.created_at)} class="nowrap">
                    {ago(l.created_at)}
                  </td>
                  <td class="ellipsis muted">{l.user_agent}</td>
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

export function LogDetail({ id }: { id: string }) {
  const l = useLoad(() => get<Log>(`/logs/${id}`), [id]);
  const keys = useLoad(() => get<List<{ id: string; name: string }>>('/api-keys'), []);
  if (l.error && !l.data)
    return (
      <>
        <p>
          <Link href="/logs">← Logs</Link>
        </p>
        <ErrorRetry error={l.error} status={l.errorStatus} retry={l.reload} />
      </>
    );
  if (!l.data) return <Loading />;
  const log = l.data;
  const key = keys.data?.data.find((k) => k.id === log.api_key_id);
  return (
    <>
      <p>
        <Link href="/logs">← Logs</Link>
      </p>
      <PageHead title={`${log.method} ${log.endpoint}`}>
        <Badge status={log.response_status < 400 ? 'delivered' : 'failed'} text={String(log.response_status)} />
      </PageHead>
      <section class="card">
        <KV
          items={[
            ['When', fmtDate(log.created_at)],
            ['Duration', `${log.duration_ms.toFixed(1)} ms`],
            ['API key', key?.name ?? log.api_key_id ?? '—'],
            ['Error', log.error_name ?? '—'],
            ['User agent', log.user_agent ?? '—'],
          ]}
        />
      </section>
      <section class="card">
        <h2>Request body</h2>
        {log.request_body == null ? (
          <p class="muted">No body.</p>
        ) : (
          <Code>{JSON.stringify(log.request_body, null, 2)}</Code>
        )}
      </section>
      <section class="card">
        <h2>Response body</h2>
        {log.response_body == null ? (
          <p class="muted">No body.</p>
        ) : (
          <Code>{JSON.stringify(log.response_body, null, 2)}</Code>
        )}
      </section>
    </>
  );
}
