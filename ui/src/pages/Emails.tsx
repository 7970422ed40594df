// The Emails activity list: newest first, filters (status, dates, domain, tag, API key) and search
// (recipient or subject) kept in the URL, more rows on scroll ("Load more" for keyboards).
import { get, qs, type List } from '../api';
import { AgoCell, Alert, Badge, Empty, Loading, PagedTable, PageHead } from '../components/ui';
import { Link } from '../components/Link';
import { useLoad, usePaged } from '../hooks';
import { setQuery } from '../router';

export interface EmailItem { id: string; to: string[]; from: string; subject: string; last_event: string; created_at: string; scheduled_at: string | null }

const STATUSES = ['sent', 'delivered', 'delivery_delayed', 'bounced', 'complained', 'opened', 'clicked', 'failed', 'suppressed', 'scheduled', 'canceled'];
const FILTERS = ['q', 'status', 'domain_id', 'api_key_id', 'tag', 'from', 'to', 'broadcast_id'] as const;

export function Emails({ query }: { query: URLSearchParams }) {
  const f = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const filtered = FILTERS.some((k) => f[k]);
  const params = {
    q: f.q, status: f.status, domain_id: f.domain_id, api_key_id: f.api_key_id, tag: f.tag, broadcast_id: f.broadcast_id || undefined,
    start_date: f.from ? new Date(`${f.from}T00:00:00`).toISOString() : undefined,
    end_date: f.to ? new Date(new Date(`${f.to}T00:00:00`).getTime() + 86400_000).toISOString() : undefined,
  };
  const key = JSON.stringify(params);
  const list = usePaged<EmailItem>((after) => `/emails${qs({ ...params, limit: 50, after })}`, key);
  const domains = useLoad(() => get<List<{ id: string; name: string }>>('/domains'), []);
  const keys = useLoad(() => get<List<{ id: string; name: string }>>('/api-keys'), []);

  const onFilter = (e: Event) => {
    e.preventDefault();
    const d = Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<string, string>;
    setQuery(Object.fromEntries(FILTERS.map((k) => [k, d[k] || undefined])));
  };
  return (
    <>
      <PageHead title="Emails" sub="Every email your team sent, newest first." />
      <form class="filters" onSubmit={onFilter} onChange={(e) => { if ((e.target as HTMLElement).tagName === 'SELECT') (e.currentTarget as HTMLFormElement).requestSubmit(); }} role="search" aria-label="Filter emails">
        <input name="q" type="search" placeholder="Search recipient or subject" defaultValue={f.q} aria-label="Search by recipient address or subject words" class="grow" />
        <select name="status" value={f.status} aria-label="Status">
          <option value="">Any status</option>
          {STATUSES.map((s) => <option key={s} value={s}>{s.replace('_', ' ')}</option>)}
        </select>
        <select name="domain_id" value={f.domain_id} aria-label="Domain">
          <option value="">Any domain</option>
          {domains.data?.data.map((d) => <option key={d.id} value={d.id}>{d.name}</option>)}
        </select>
        <select name="api_key_id" value={f.api_key_id} aria-label="API key">
          <option value="">Any API key</option>
          {keys.data?.data.map((k) => <option key={k.id} value={k.id}>{k.name}</option>)}
        </select>
        <input name="tag" placeholder="tag or tag:value" defaultValue={f.tag} aria-label="Tag" size={14} />
        <label class="inline small">From <input name="from" type="date" defaultValue={f.from} /></label>
        <label class="inline small">To <input name="to" type="date" defaultValue={f.to} /></label>
        <button class="btn">Apply</button>
        {filtered && <button type="button" class="btn ghost" onClick={() => setQuery(Object.fromEntries(FILTERS.map((k) => [k, undefined])))}>Clear</button>}
      </form>
      {list.error && <Alert>{list.error}</Alert>}
      {!list.loaded ? <Loading /> : list.rows.length === 0 ? (
        filtered ? <Empty title="No emails match these filters" action={<button class="btn" onClick={() => setQuery(Object.fromEntries(FILTERS.map((k) => [k, undefined])))}>Clear filters</button>} /> : (
          <Empty title="No emails yet">
            <ol class="steps">
              <li><Link href="/domains">Add and verify a domain</Link> to send from.</li>
              <li><Link href="/api-keys">Create an API key</Link>.</li>
              <li>Send with any Resend SDK pointed at this server, or with curl:
                <pre class="code">{`curl -X POST ${location.origin}/emails \\
  -H "Authorization: Bearer re_..." -H "Content-Type: application/json" \\
  -d '{"from":"you@your-domain","to":"someone@example.com","subject":"Hello","html":"<p>Hi</p>"}'`}</pre>
              </li>
            </ol>
          </Empty>
        )
      ) : (
        <PagedTable list={list} head={<><th scope="col">To</th><th scope="col">Subject</th><th scope="col">Status</th><th scope="col">Sent</th></>}>
          {list.rows.map((e) => (
            <tr key={e.id}>
              <td class="ellipsis" title={e.to.join(', ')}>{e.to.join(', ')}</td>
              <td class="ellipsis"><Link href={`/emails/${e.id}`}>{e.subject || '(no subject)'}</Link></td>
              <td><Badge status={e.last_event} /></td>
              <AgoCell at={e.created_at} />
            </tr>
          ))}
        </PagedTable>
      )}
    </>
  );
}
