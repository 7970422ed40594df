// Events: the custom events the team's product sent (POST /events/send), newest first, filtered by
// name and by contact (an id or an address); the names seen lately with their counts; and the event
// definitions with their payload schemas. Reads GET /custom-events (a Mailroom extension).
import { useState } from 'preact/hooks';
import { get } from '../api';
import { allPages } from '../audience';
import { Link } from '../components/Link';
import { AgoCell, Empty, ErrorRetry, Loading, PageHead, PagedTable } from '../components/ui';
import { useLoad, usePaged } from '../hooks';
import { setQuery } from '../router';

interface Event {
  id: string;
  event: string;
  contact_id: string | null;
  email: string;
  payload: Record<string, unknown>;
  created_at: string;
}
interface Name {
  name: string;
  count: number;
  last_seen_at: string;
}
interface Definition {
  id: string;
  name: string;
  schema: Record<string, string> | null;
}

export function Events({ query }: { query: URLSearchParams }) {
  const event = query.get('event') ?? '';
  const contact = query.get('contact') ?? '';
  const [who, setWho] = useState(contact);
  const names = useLoad(() => get<{ data: Name[]; window: number }>('/custom-events/names'), []);
  const defs = useLoad(() => allPages<Definition>(get, '/events', 5), []);
  const q = `event=${encodeURIComponent(event)}&contact=${encodeURIComponent(contact)}`;
  const list = usePaged<Event>((after) => `/custom-events?limit=50&${q}${after ? `&after=${after}` : ''}`, q);
  const all = [
    ...new Set([...(defs.data ?? []).map((d) => d.name), ...(names.data?.data ?? []).map((n) => n.name)]),
  ].sort();
  const filtered = Boolean(event || contact);
  return (
    <>
      <PageHead
        title="Events"
        sub="What your product told Mailroom its users did (POST /events/send): the triggers of automations."
      />
      <form
        class="inline-form card"
        aria-label="Filter events"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ contact: who.trim() || undefined });
        }}
      >
        <label class="field-inline">
          Event
          <select
            aria-label="Event name"
            value={event}
            onChange={(e) => setQuery({ event: (e.currentTarget as HTMLSelectElement).value || undefined })}
          >
            <option value="">All events</option>
            {event && !all.includes(event) && <option value={event}>{event}</option>}
            {all.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </label>
        <label class="sr-only" for="ev-contact">
          Contact
        </label>
        <input
          id="ev-contact"
          class="grow"
          value={who}
          placeholder="Contact id or email"
          onInput={(e) => setWho((e.currentTarget as HTMLInputElement).value)}
        />
        <button class="btn">Show</button>
        {filtered && (
          <button
            type="button"
            class="btn ghost"
            onClick={() => {
              setWho('');
              setQuery({ event: undefined, contact: undefined });
            }}
          >
            Clear filters
          </button>
        )}
      </form>
      {names.data && names.data.data.length > 0 && (
        <section class="card" aria-labelledby="names-h">
          <h2 id="names-h">Recent event names</h2>
          <ul class="chips" data-testid="event-names">
            {names.data.data.map((n) => (
              <li key={n.name}>
                <button
                  type="button"
                  class={`chip${n.name === event ? ' on' : ''}`}
                  aria-pressed={n.name === event}
                  onClick={() => setQuery({ event: n.name === event ? undefined : n.name })}
                >
                  {n.name} <span class="muted">{n.count}</span>
                </button>
              </li>
            ))}
          </ul>
          <p class="hint">Counts among the newest {names.data.window.toLocaleString()} events.</p>
        </section>
      )}
      {list.error ? (
        <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />
      ) : !list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty title={filtered ? 'No events match' : 'No events yet'}>
          {filtered ? (
            'Try another name or contact.'
          ) : (
            <>
              Send one with{' '}
              <code>
                resend.events.send({'{'} event, email, payload {'}'})
              </code>
              .
            </>
          )}
        </Empty>
      ) : (
        <>
          {filtered && (
            <p class="muted small" role="status">
              Showing {list.rows.length}
              {list.hasMore ? '+' : ''} events{event ? ` named ${event}` : ''}
              {contact ? ` of ${contact}` : ''}.
            </p>
          )}
          <PagedTable
            list={list}
            testId="events"
            stack
            head={
              <>
                <th scope="col">Event</th>
                <th scope="col">Contact</th>
                <th scope="col">Payload</th>
                <th scope="col">When</th>
              </>
            }
          >
            {list.rows.map((e) => (
              <tr key={e.id}>
                <td class="mono">{e.event}</td>
                <td class="desc">
                  {e.contact_id ? (
                    <Link href={`/contacts/${e.contact_id}`}>{e.email}</Link>
                  ) : (
                    <span>
                      {e.email} <span class="muted small">(sent by address)</span>
                    </span>
                  )}
                </td>
                <td>
                  <code class="wrap small">{JSON.stringify(e.payload)}</code>
                </td>
                <AgoCell at={e.created_at} class="aside" />
              </tr>
            ))}
          </PagedTable>
        </>
      )}
      {defs.error ? (
        <ErrorRetry error={defs.error} status={defs.errorStatus} retry={defs.reload} />
      ) : (
        defs.data &&
        defs.data.length > 0 && (
          <section class="card spaced" aria-labelledby="defs-h">
            <h2 id="defs-h">Definitions</h2>
            <p class="hint">
              Declared with <code>POST /events</code>: their payloads are checked and converted on send.
            </p>
            <ul class="plain">
              {defs.data.map((d) => (
                <li key={d.id}>
                  <span class="mono">{d.name}</span>{' '}
                  <span class="muted small">
                    {d.schema
                      ? Object.entries(d.schema)
                          .map(([k, t]) => `${k}: ${t}`)
                          .join(', ')
                      : 'any payload'}
                  </span>
                </li>
              ))}
            </ul>
          </section>
        )
      )}
    </>
  );
}
