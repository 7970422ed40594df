// A contact's page: its fields and properties, whether it takes any mail at all, the segments it is
// in (added and removed here) and each topic with the state that decides its mail (the contact's
// own choice or the topic's default) and a switch to opt in or out, and its latest custom events
// (GET /contacts/:id/events). Members only read.
import { del, get, patch, post, type List } from '../api';
import { allPages, DEFAULT_WORDS, fullName, type ContactTopic, type Segment } from '../audience';
import { Link } from '../components/Link';
import { Switch } from '../components/Switch';
import { AgoCell, Alert, Badge, Copy, KV, Loading, PageHead } from '../components/ui';
import { fmtDate } from '../format';
import { useAction, useLoad } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

interface Contact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  created_at: string;
  properties: Record<string, { type: string; value: string | number | boolean | null }>;
}

export function ContactDetail({ id }: { id: string }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const c = useLoad(() => get<Contact>(`/contacts/${encodeURIComponent(id)}`), [id]);
  const toggle = useAction(async () => {
    await patch(`/contacts/${id}`, { unsubscribed: !c.data?.unsubscribed });
    c.reload();
  });
  const remove = useAction(async () => {
    if (!c.data || !confirm(`Delete the contact ${c.data.email}?`)) return;
    await del(`/contacts/${id}`);
    navigate('/contacts');
  });
  const back = (
    <p>
      <Link href="/contacts">← Contacts</Link>
    </p>
  );
  if (c.error)
    return (
      <>
        {back}
        <Alert>{c.error}</Alert>
      </>
    );
  if (!c.data) return <Loading />;
  const ct = c.data;
  const props = Object.entries(ct.properties ?? {});
  return (
    <div class="audience">
      {back}
      <PageHead title={ct.email} sub={fullName(ct) || undefined}>
        <Badge status={ct.unsubscribed ? 'unsubscribed' : 'subscribed'} />
        {edit && (
          <button class="btn" onClick={() => toggle.run()} disabled={toggle.busy}>
            {ct.unsubscribed ? 'Resubscribe' : 'Unsubscribe from all mail'}
          </button>
        )}
        {edit && (
          <button class="btn bad ghost" onClick={() => remove.run()} disabled={remove.busy}>
            Delete
          </button>
        )}
      </PageHead>
      {(toggle.error || remove.error) && <Alert>{toggle.error ?? remove.error}</Alert>}
      {ct.unsubscribed && (
        <Alert kind="warn">
          This contact is unsubscribed from all mail: no broadcast or topic reaches it, whatever its topics below say.
        </Alert>
      )}
      <section class="card" aria-label="Fields">
        <KV
          items={[
            ['Email', ct.email],
            ['First name', ct.first_name ?? '—'],
            ['Last name', ct.last_name ?? '—'],
            ['Status', ct.unsubscribed ? 'Unsubscribed from all mail' : 'Subscribed'],
            ['Created', fmtDate(ct.created_at)],
            [
              'ID',
              <span class="mono">
                {ct.id} <Copy text={ct.id} small />
              </span>,
            ],
          ]}
        />
      </section>
      <section class="card" aria-labelledby="props-h">
        <h2 id="props-h">Properties</h2>
        {props.length === 0 ? (
          <p class="muted">
            No properties. Define them with <code>POST /contact-properties</code>, then set values on the contact.
          </p>
        ) : (
          <KV
            items={props.map(([k, p]) => [
              k,
              <span>
                {String(p.value)} <span class="muted small">({p.type})</span>
              </span>,
            ])}
          />
        )}
      </section>
      <ContactSegments contactId={ct.id} edit={edit} />
      <ContactTopics contactId={ct.id} edit={edit} />
      <ContactEvents contactId={ct.id} email={ct.email} />
    </div>
  );
}

function ContactSegments({ contactId, edit }: { contactId: string; edit: boolean }) {
  const mine = useLoad(() => get<List<Segment>>(`/contacts/${contactId}/segments`), [contactId]);
  const all = useLoad(() => (edit ? allPages<Segment>(get, '/segments') : Promise.resolve([])), [contactId, edit]);
  const add = useAction(async (form: HTMLFormElement) => {
    const segmentId = new FormData(form).get('segment') as string;
    if (!segmentId) return;
    await post(`/contacts/${contactId}/segments/${segmentId}`);
    mine.reload();
  });
  const remove = useAction(async (s: Segment) => {
    await del(`/contacts/${contactId}/segments/${s.id}`);
    mine.reload();
  });
  const inside = new Set(mine.data?.data.map((s) => s.id));
  const others = (all.data ?? []).filter((s) => !inside.has(s.id));
  return (
    <section class="card" aria-labelledby="segs-h">
      <h2 id="segs-h">Segments</h2>
      {(mine.error || all.error || remove.error) && <Alert>{mine.error ?? all.error ?? remove.error}</Alert>}
      {!mine.data ? (
        <Loading />
      ) : mine.data.data.length === 0 ? (
        <p class="muted">Not in any segment.</p>
      ) : (
        <ul class="plain" data-testid="contact-segments">
          {mine.data.data.map((s) => (
            <li key={s.id} class="row">
              <Link href={`/segments/${s.id}`}>{s.name}</Link>
              {edit && (
                <button
                  class="btn ghost sm"
                  onClick={() => remove.run(s)}
                  disabled={remove.busy}
                  aria-label={`Remove from ${s.name}`}
                >
                  Remove
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {edit &&
        all.data &&
        (others.length === 0 ? (
          <p class="hint">
            {all.data.length === 0 ? (
              <>
                No segments exist yet: <Link href="/segments">create one</Link>.
              </>
            ) : (
              'In every segment.'
            )}
          </p>
        ) : (
          <form
            class="inline-form"
            aria-label="Add to a segment"
            onSubmit={(e) => {
              e.preventDefault();
              add.run(e.currentTarget as HTMLFormElement);
            }}
          >
            <label class="sr-only" for="add-segment">
              Segment
            </label>
            <select id="add-segment" name="segment" class="grow">
              {others.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
            <button class="btn" disabled={add.busy}>
              Add to segment
            </button>
            {add.error && <Alert>{add.error}</Alert>}
          </form>
        ))}
    </section>
  );
}

function ContactTopics({ contactId, edit }: { contactId: string; edit: boolean }) {
  const topics = useLoad(() => get<List<ContactTopic>>(`/contacts/${contactId}/topics`), [contactId]);
  const change = useAction(async (t: ContactTopic, on: boolean) => {
    await patch(`/contacts/${contactId}/topics`, { topics: [{ id: t.id, subscription: on ? 'opt_in' : 'opt_out' }] });
    topics.reload();
  });
  const source = (t: ContactTopic) =>
    t.chosen
      ? "Contact's choice"
      : t.default_subscription
        ? `Topic default (${DEFAULT_WORDS[t.default_subscription].short.toLowerCase()})`
        : 'Topic default';
  return (
    <section class="card" aria-labelledby="topics-h">
      <h2 id="topics-h">Topics</h2>
      <p class="hint">
        Whether this contact gets each topic's mail: its own choice when it made one, else the topic's default.
      </p>
      {(topics.error || change.error) && <Alert>{topics.error ?? change.error}</Alert>}
      {!topics.data ? (
        <Loading />
      ) : topics.data.data.length === 0 ? (
        <p class="muted">
          No topics exist yet
          {edit ? (
            <>
              : <Link href="/topics">add one</Link>
            </>
          ) : (
            ''
          )}
          .
        </p>
      ) : (
        <div class="table-wrap">
          <table class="list" data-testid="contact-topics">
            <thead>
              <tr>
                <th scope="col">Topic</th>
                <th scope="col">Gets its mail</th>
                <th scope="col">Because of</th>
              </tr>
            </thead>
            <tbody>
              {topics.data.data.map((t) => {
                const on = t.subscription === 'opt_in';
                return (
                  <tr key={t.id}>
                    <td class="desc">
                      <span class="strong">{t.name}</span>
                      {t.description && <div class="muted small">{t.description}</div>}
                    </td>
                    <td class="nowrap">
                      {edit ? (
                        <Switch
                          on={on}
                          disabled={change.busy}
                          label={`${t.name}: subscribed`}
                          onChange={(next) => change.run(t, next)}
                        >
                          {on ? 'Subscribed' : 'Not subscribed'}
                        </Switch>
                      ) : (
                        <Badge
                          status={on ? 'subscribed' : 'unsubscribed'}
                          text={on ? 'Subscribed' : 'Not subscribed'}
                        />
                      )}
                    </td>
                    <td class="small">{source(t)}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

const RECENT_EVENTS = 10;

function ContactEvents({ contactId, email }: { contactId: string; email: string }) {
  const events = useLoad(
    () =>
      get<List<{ id: string; event: string; payload: Record<string, unknown>; created_at: string }>>(
        `/contacts/${contactId}/events?limit=${RECENT_EVENTS}`,
      ),
    [contactId],
  );
  return (
    <section class="card" aria-labelledby="events-h">
      <h2 id="events-h">Events</h2>
      <p class="hint">
        What your product sent about this contact (<code>POST /events/send</code>), newest first.
      </p>
      {events.error && <Alert>{events.error}</Alert>}
      {!events.data ? (
        events.error ? null : (
          <Loading />
        )
      ) : events.data.data.length === 0 ? (
        <p class="muted">No events yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="list" data-testid="contact-events">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Payload</th>
                <th scope="col">When</th>
              </tr>
            </thead>
            <tbody>
              {events.data.data.map((e) => (
                <tr key={e.id}>
                  <td class="mono">{e.event}</td>
                  <td>
                    <code class="wrap small">{JSON.stringify(e.payload)}</code>
                  </td>
                  <AgoCell at={e.created_at} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {events.data && (events.data.has_more || events.data.data.length > 0) && (
        <p>
          <Link href={`/events?contact=${encodeURIComponent(email)}`}>All of this contact's events →</Link>
        </p>
      )}
    </section>
  );
}
