// The Emails activity list: newest first, filters (status, dates, domain, tag, API key) and search
// (part of a recipient address or domain, or subject words) kept in the URL, more rows on scroll
// ("Load more" for keyboards); a whole row opens the email.
import { useState } from 'preact/hooks';
import { get, post, qs, type List } from '../api';
import { AgoCell, Alert, Badge, Empty, ErrorRetry, Loading, PageHead, PagedTable } from '../components/ui';
import { Link } from '../components/Link';
import { useAction, useLoad, usePaged } from '../hooks';
import { canEdit, useSession } from '../session';
import { fmtDate, titleLabel } from '../format';
import { navigate, setQuery } from '../router';

export interface EmailItem {
  id: string;
  to: string[];
  from: string;
  subject: string;
  last_event: string;
  created_at: string;
  scheduled_at: string | null;
}

const STATUSES = [
  'sent',
  'delivered',
  'delivery_delayed',
  'bounced',
  'complained',
  'opened',
  'clicked',
  'failed',
  'suppressed',
  'scheduled',
  'canceled',
];
const FILTERS = ['q', 'status', 'domain_id', 'api_key_id', 'tag', 'from', 'to', 'broadcast_id'] as const;

export function Emails({ query }: { query: URLSearchParams }) {
  const f = Object.fromEntries(FILTERS.map((k) => [k, query.get(k) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const filtered = FILTERS.some((k) => f[k]);
  const params = {
    q: f.q,
    status: f.status,
    domain_id: f.domain_id,
    api_key_id: f.api_key_id,
    tag: f.tag,
    broadcast_id: f.broadcast_id || undefined,
    start_date: f.from ? new Date(`${f.from}T00:00:00`).toISOString() : undefined,
    end_date: f.to ? new Date(new Date(`${f.to}T00:00:00`).getTime() + 86400_000).toISOString() : undefined,
  };
  const key = JSON.stringify(params);
  const list = usePaged<EmailItem>((after) => `/emails${qs({ ...params, limit: 50, after })}`, key);
  // The total for a filter (counted by the server up to 10,000), so "noah" says how many it found, not how many loaded.
  const total = useLoad(
    () =>
      filtered ? get<{ count: number; capped: boolean }>(`/emails/count${qs(params)}`) : Promise.resolve(undefined),
    [key],
  );
  const domains = useLoad(() => get<List<{ id: string; name: string }>>('/domains'), []);
  const keys = useLoad(() => get<List<{ id: string; name: string }>>('/api-keys'), []);

  const { state } = useSession();
  const verified = domains.data?.data.filter((d) => (d as { status?: string }).status === 'verified') ?? [];
  const onFilter = (e: Event) => {
    e.preventDefault();
    const d = Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<string, string>;
    setQuery(Object.fromEntries(FILTERS.map((k) => [k, d[k] || undefined])));
  };
  return (
    <>
      <PageHead title="Emails" sub="Every email your team sent, newest first." />
      {canEdit(state) && verified.length > 0 && <SendTest domains={verified} onSent={list.reload} />}
      <form
        class="filters"
        onSubmit={onFilter}
        onChange={(e) => {
          if ((e.target as HTMLElement).tagName === 'SELECT') (e.currentTarget as HTMLFormElement).requestSubmit();
        }}
        role="search"
        aria-label="Filter emails"
      >
        <label class="inline small grow">
          Search{' '}
          <input
            name="q"
            type="search"
            placeholder="recipient, domain or subject"
            defaultValue={f.q}
            aria-label="Search by part of a recipient address, a domain or subject words"
            class="grow"
          />
        </label>
        <label class="inline small">
          Status{' '}
          <select name="status" value={f.status}>
            <option value="">Any status</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {titleLabel(s)}
              </option>
            ))}
          </select>
        </label>
        <label class="inline small">
          Domain{' '}
          <select name="domain_id" value={f.domain_id}>
            <option value="">Any domain</option>
            {domains.data?.data.map((d) => (
              <option key={d.id} value={d.id}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <label class="inline small">
          API key{' '}
          <select name="api_key_id" value={f.api_key_id}>
            <option value="">Any API key</option>
            {keys.data?.data.map((k) => (
              <option key={k.id} value={k.id}>
                {k.name}
              </option>
            ))}
          </select>
        </label>
        <label class="inline small">
          Tag <input name="tag" placeholder="name or name:value" defaultValue={f.tag} size={14} />
        </label>
        <label class="inline small">
          From <input name="from" type="date" defaultValue={f.from} />
        </label>
        <label class="inline small">
          To <input name="to" type="date" defaultValue={f.to} />
        </label>
        <button class="btn">Apply</button>
        {filtered && (
          <button
            type="button"
            class="btn ghost"
            onClick={() => setQuery(Object.fromEntries(FILTERS.map((k) => [k, undefined])))}
          >
            Clear
          </button>
        )}
      </form>
      {list.error && <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />}
      {!list.loaded ? (
        <Loading />
      ) : list.error && !list.rows.length ? null : list.rows.length === 0 ? (
        filtered ? (
          <Empty
            title="No emails match these filters"
            action={
              <button class="btn" onClick={() => setQuery(Object.fromEntries(FILTERS.map((k) => [k, undefined])))}>
                Clear filters
              </button>
            }
          />
        ) : (
          <Empty title="No emails yet">
            <ol class="steps">
              <li>
                <Link href="/domains">Add and verify a domain</Link> to send from.
              </li>
              <li>
                <Link href="/api-keys">Create an API key</Link>.
              </li>
              <li>
                Send with any Resend SDK pointed at this server, or with curl:
                <pre class="code">{`curl -X POST ${location.origin}/emails \\
  -H "Authorization: Bearer re_..." -H "Content-Type: application/json" \\
  -d '{"from":"you@your-domain","to":"someone@example.com","subject":"Hello","html":"<p>Hi</p>"}'`}</pre>
              </li>
            </ol>
          </Empty>
        )
      ) : (
        <PagedTable
          list={list}
          stack
          head={
            <>
              <th scope="col">To</th>
              <th scope="col">Subject</th>
              <th scope="col">Status</th>
              <th scope="col">Sent</th>
            </>
          }
        >
          {list.rows.map((e) => (
            <tr
              key={e.id}
              class="clickable"
              onClick={(ev) => {
                if (!(ev.target as HTMLElement).closest('a, button') && !getSelection()?.toString())
                  navigate(`/emails/${e.id}`);
              }}
            >
              <td class="ellipsis" title={e.to.join(', ')}>
                {e.to.join(', ')}
              </td>
              <td class="ellipsis">
                <Link href={`/emails/${e.id}`}>{e.subject || '(no subject)'}</Link>
              </td>
              <td class="aside">
                <Badge status={e.last_event} />
              </td>
              {e.last_event === 'scheduled' && e.scheduled_at ? (
                <td class="nowrap aside" title={fmtDate(e.scheduled_at)}>
                  for {fmtDate(e.scheduled_at)}
                </td>
              ) : (
                <AgoCell at={e.created_at} class="aside" />
              )}
            </tr>
          ))}
        </PagedTable>
      )}
      {list.loaded && list.rows.length > 0 && (
        <p class="muted small" data-testid="list-count">
          {filtered && total.data && !total.loading ? (
            <>
              {total.data.count.toLocaleString('en')}
              {total.data.capped ? '+' : ''} {total.data.count === 1 && !total.data.capped ? 'match' : 'matches'}
              {list.hasMore ? `; ${list.rows.length} shown, more load as you scroll` : ''}.
            </>
          ) : (
            <>
              {list.rows.length} {filtered ? (list.rows.length === 1 ? 'match' : 'matches') : 'shown'}
              {list.hasMore ? ' so far; more load as you scroll' : ''}.
            </>
          )}
        </p>
      )}
    </>
  );
}

/** A test email from the dashboard, through the same POST /emails as the SDKs. */
function SendTest({ domains, onSent }: { domains: { id: string; name: string }[]; onSent: () => void }) {
  const { state } = useSession();
  const [sent, setSent] = useState<string>();
  const send = useAction(async (form: HTMLFormElement) => {
    const d = Object.fromEntries(new FormData(form)) as Record<string, string>;
    const r = await post<{ id: string }>('/emails', {
      from: `${d.local || 'test'}@${d.domain}`,
      to: d.to.trim(),
      subject: d.subject || 'Test email from Mailroom',
      html: `<p>This is a test email sent from the Mailroom dashboard by ${state.user?.email ?? 'a team member'}.</p>`,
    });
    setSent(r.id);
    onSent();
  });
  return (
    <details class="card" data-testid="send-test">
      <summary>Send a test email</summary>
      <form
        class="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          send.run(e.currentTarget as HTMLFormElement);
        }}
      >
        <label class="field-inline">
          From <input name="local" defaultValue="test" size={8} aria-label="From (before the @)" />@
          <select name="domain" aria-label="From domain">
            {domains.map((d) => (
              <option key={d.id} value={d.name}>
                {d.name}
              </option>
            ))}
          </select>
        </label>
        <label class="field-inline grow">
          To <input name="to" type="email" required defaultValue={state.user?.email ?? ''} />
        </label>
        <label class="field-inline grow">
          Subject <input name="subject" defaultValue="Test email from Mailroom" />
        </label>
        <button class="btn primary" disabled={send.busy}>
          Send
        </button>
        {send.error && <Alert>{send.error}</Alert>}
        {sent && !send.error && (
          <Alert kind="ok">
            Sent. <Link href={`/emails/${sent}`}>See its timeline</Link>.
          </Alert>
        )}
      </form>
    </details>
  );
}
