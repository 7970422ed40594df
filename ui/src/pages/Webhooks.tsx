// Webhooks: endpoints with their events and status, adding one (signing secret shown once), and an
// endpoint's page: edit its events, rotate its secret, the delivery log (each message's request
// body and attempts: status, latency, response) and replay.
import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { del, get, patch, post, type List } from '../api';
import { Alert, Badge, Code, Copy, Empty, ErrorRetry, KV, Loading, PagedTable, PageHead } from '../components/ui';
import { Link } from '../components/Link';
import { ago, fmtDate } from '../format';
import { useAction, useLoad, usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

interface Webhook {
  id: string;
  endpoint: string;
  events: string[];
  status: string;
  created_at: string;
}
interface Message {
  id: string;
  type: string;
  created_at: string;
  status: string;
}
interface Attempt {
  id: string;
  http_status_code: number;
  response: string;
  sent_at: string;
  duration_ms: number;
  endpoint: string;
  error: { type: string; message: string } | null;
}

const EMAIL_EVENTS = [
  'email.sent',
  'email.scheduled',
  'email.delivered',
  'email.delivery_delayed',
  'email.bounced',
  'email.complained',
  'email.opened',
  'email.clicked',
  'email.failed',
  'email.suppressed',
  'email.received',
];
/** Every event an endpoint can subscribe to, by group (src/events/types.ts, the public ones). */
const EVENT_GROUPS: [string, string[]][] = [
  ['Emails', EMAIL_EVENTS],
  ['Contacts', ['contact.created', 'contact.updated', 'contact.deleted']],
  ['Domains', ['domain.created', 'domain.updated', 'domain.deleted']],
  ['Suppressions', ['suppression.added', 'suppression.removed']],
  ['Topics', ['topic.created', 'topic.updated', 'topic.deleted']],
];

function EventPicker({ chosen }: { chosen: string[] }) {
  return (
    <>
      {EVENT_GROUPS.map(([group, events]) => (
        <fieldset key={group} class="events">
          <legend>{group}</legend>
          {events.map((ev) => (
            <label key={ev} class="check">
              <input type="checkbox" name="events" value={ev} defaultChecked={chosen.includes(ev)} /> {ev}
            </label>
          ))}
        </fieldset>
      ))}
    </>
  );
}

export function Webhooks() {
  const { state } = useSession();
  const edit = canEdit(state);
  const list = useLoad(() => get<List<Webhook>>('/webhooks'), []);
  const [secret, setSecret] = useState<string>();
  const create = useAction(async (form: HTMLFormElement) => {
    const fd = new FormData(form);
    const events = fd.getAll('events') as string[];
    if (!events.length) throw new Error('Pick at least one event.');
    const r = await post<{ id: string; signing_secret: string }>('/webhooks', { endpoint: fd.get('endpoint'), events });
    setSecret(r.signing_secret);
    form.reset();
    list.reload();
  });
  return (
    <>
      <PageHead
        title="Webhooks"
        sub="Mailroom POSTs signed events (Standard Webhooks) to your endpoints, with retries."
      />
      {secret && (
        <section class="card highlight" aria-live="polite">
          <h2>Signing secret</h2>
          <p>
            Verify each request's <code>webhook-signature</code> with it. It stays readable through the API, but copy it
            now for convenience.
          </p>
          <div class="token">
            <code class="mono">{secret}</code>
            <Copy text={secret} />
          </div>
          <button class="btn ghost sm" onClick={() => setSecret(undefined)}>
            Done
          </button>
        </section>
      )}
      {edit && (
        <details class="card" open={list.data?.data.length === 0}>
          <summary>Add an endpoint</summary>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              create.run(e.currentTarget as HTMLFormElement);
            }}
          >
            <div class="field">
              <label for="wh-url">Endpoint URL</label>
              <input
                id="wh-url"
                name="endpoint"
                type="url"
                required
                placeholder="https://example.com/webhooks/mailroom"
              />
            </div>
            <EventPicker chosen={['email.delivered', 'email.bounced', 'email.complained']} />
            {create.error && <Alert>{create.error}</Alert>}
            <button class="btn primary" disabled={create.busy}>
              Add endpoint
            </button>
          </form>
        </details>
      )}
      {list.error && <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />}
      {!list.data ? (
        list.error ? null : (
          <Loading />
        )
      ) : list.data.data.length === 0 ? (
        <Empty title="No webhook endpoints">
          Add one to hear about deliveries, bounces and complaints as they happen.
        </Empty>
      ) : (
        <div class="table-wrap">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((w) => (
                <tr key={w.id}>
                  <td class="ellipsis">
                    <Link href={`/webhooks/${w.id}`}>{w.endpoint}</Link>
                  </td>
                  <td class="small">
                    {w.events.length > 3
                      ? `${w.events.slice(0, 3).join(', ')} +${w.events.length - 3}`
                      : w.events.join(', ')}
                  </td>
                  <td>
                    <Badge status={w.status} />
                  </td>
                  <td title={fmtDate(w.created_at)}>{ago(w.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function WebhookDetail({ id }: { id: string }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const w = useLoad(() => get<Webhook & { signing_secret?: string }>(`/webhooks/${id}`), [id]);
  const [logFilter, setLogFilter] = useState({ status: '', type: '' });
  const logQuery = `${logFilter.status ? `&status=${logFilter.status}` : ''}${logFilter.type ? `&type=${logFilter.type}` : ''}`;
  const filtered = logQuery !== '';
  const msgs = usePaged<Message>(
    (after) => `/webhooks/${id}/events?limit=50${logQuery}${after ? `&after=${after}` : ''}`,
    `${id}${logQuery}`,
  );
  const [open, setOpen] = useState<string>();
  const toggle = useAction(async () => {
    await patch(`/webhooks/${id}`, { status: w.data?.status === 'enabled' ? 'disabled' : 'enabled' });
    w.reload();
  });
  const remove = useAction(async () => {
    if (confirm('Delete this endpoint?')) {
      await del(`/webhooks/${id}`);
      navigate('/webhooks');
    }
  });
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState<string>();
  const saveEvents = useAction(async (form: HTMLFormElement) => {
    const events = new FormData(form).getAll('events') as string[];
    if (!events.length) throw new Error('Pick at least one event.');
    await patch(`/webhooks/${id}`, { events });
    setEditing(false);
    w.reload();
  });
  const rotate = useAction(async () => {
    if (
      !confirm(
        'Rotate the signing secret? The old one keeps signing alongside the new one for 24 hours, so update your endpoint within a day.',
      )
    )
      return;
    setSecret((await post<{ signing_secret: string }>(`/webhooks/${id}/signing-secret/rotate`)).signing_secret);
    w.reload();
  });
  if (w.error && !w.data)
    return (
      <>
        <p>
          <Link href="/webhooks">← Webhooks</Link>
        </p>
        <ErrorRetry error={w.error} status={w.errorStatus} retry={w.reload} />
      </>
    );
  if (!w.data) return <Loading />;
  return (
    <>
      <p>
        <Link href="/webhooks">← Webhooks</Link>
      </p>
      <PageHead title={w.data.endpoint}>
        <Badge status={w.data.status} />
        {edit && (
          <button class="btn" onClick={() => toggle.run()}>
            {w.data.status === 'enabled' ? 'Disable' : 'Enable'}
          </button>
        )}
        {edit && (
          <button class="btn" onClick={() => setEditing(!editing)} aria-expanded={editing}>
            Edit events
          </button>
        )}
        {edit && (
          <button class="btn" onClick={() => rotate.run()} disabled={rotate.busy}>
            Rotate secret
          </button>
        )}
        {edit && (
          <button class="btn bad ghost" onClick={() => remove.run()}>
            Delete
          </button>
        )}
      </PageHead>
      {(toggle.error || remove.error || rotate.error) && <Alert>{toggle.error ?? remove.error ?? rotate.error}</Alert>}
      {secret && (
        <section class="card highlight" aria-live="polite" data-testid="rotated-secret">
          <h2>New signing secret</h2>
          <p>It signs from now on; the old secret also signs for the next 24 hours.</p>
          <div class="token">
            <code class="mono">{secret}</code>
            <Copy text={secret} />
          </div>
          <button class="btn ghost sm" onClick={() => setSecret(undefined)}>
            Done
          </button>
        </section>
      )}
      {editing && (
        <form
          class="card"
          data-testid="edit-events"
          onSubmit={(e) => {
            e.preventDefault();
            saveEvents.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <h2>Events sent to this endpoint</h2>
          <EventPicker chosen={w.data.events} />
          {saveEvents.error && <Alert>{saveEvents.error}</Alert>}
          <div class="row">
            <button class="btn primary" disabled={saveEvents.busy}>
              Save events
            </button>
            <button type="button" class="btn ghost" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      )}
      <section class="card">
        <KV
          items={[
            ['Events', w.data.events.join(', ')],
            ['Added', fmtDate(w.data.created_at)],
            ...(w.data.signing_secret
              ? [
                  [
                    'Signing secret',
                    <span class="mono">
                      {w.data.signing_secret.slice(0, 10)}… <Copy text={w.data.signing_secret} small />
                    </span>,
                  ] as [string, any],
                ]
              : []),
          ]}
        />
      </section>
      <section class="card">
        <h2>Delivery log</h2>
        <form
          class="filters"
          role="search"
          aria-label="Filter the delivery log"
          onChange={(e) => {
            const f = new FormData(e.currentTarget as HTMLFormElement);
            setLogFilter({ status: String(f.get('status') ?? ''), type: String(f.get('type') ?? '') });
          }}
          onSubmit={(e) => e.preventDefault()}
        >
          <label class="inline small">
            Status{' '}
            <select name="status" value={logFilter.status}>
              <option value="">Any</option>
              {['pending', 'attempting', 'success', 'failed'].map((s) => (
                <option key={s} value={s}>
                  {s[0].toUpperCase() + s.slice(1)}
                </option>
              ))}
            </select>
          </label>
          <label class="inline small">
            Event{' '}
            <select name="type" value={logFilter.type}>
              <option value="">Any</option>
              {(w.data.events.length ? w.data.events : EVENT_GROUPS.flatMap(([, evs]) => evs)).map((ev) => (
                <option key={ev} value={ev}>
                  {ev}
                </option>
              ))}
            </select>
          </label>
        </form>
        {msgs.error && <ErrorRetry error={msgs.error} status={msgs.errorStatus} retry={msgs.reload} />}
        {!msgs.loaded ? (
          <Loading />
        ) : msgs.error && !msgs.rows.length ? null : msgs.rows.length === 0 ? (
          <p class="muted">{filtered ? 'No delivery matches these filters.' : 'Nothing sent to this endpoint yet.'}</p>
        ) : (
          <PagedTable
            list={msgs}
            testId="webhook-log"
            head={
              <>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span class="sr-only">Details</span>
                </th>
              </>
            }
          >
            {msgs.rows.map((m) => (
              <Fragment key={m.id}>
                <tr>
                  <td class="mono">{m.type}</td>
                  <td>
                    <Badge status={m.status} />
                  </td>
                  <td title={fmtDate(m.created_at)}>{ago(m.created_at)}</td>
                  <td class="right">
                    <button
                      class="btn ghost sm"
                      aria-expanded={open === m.id}
                      onClick={() => setOpen(open === m.id ? undefined : m.id)}
                    >
                      Attempts
                    </button>
                  </td>
                </tr>
                {open === m.id && (
                  <tr>
                    <td colSpan={4}>
                      <Attempts webhookId={id} messageId={m.id} canReplay={edit} onReplay={msgs.reload} />
                    </td>
                  </tr>
                )}
              </Fragment>
            ))}
          </PagedTable>
        )}
        {msgs.loaded && msgs.rows.length > 0 && (
          <p class="muted small" data-testid="list-count">
            {msgs.rows.length} {filtered ? (msgs.rows.length === 1 ? 'match' : 'matches') : 'shown'}
            {msgs.hasMore ? '; more load as you scroll' : ''}.
          </p>
        )}
      </section>
    </>
  );
}

function Attempts({
  webhookId,
  messageId,
  canReplay,
  onReplay,
}: {
  webhookId: string;
  messageId: string;
  canReplay: boolean;
  onReplay: () => void;
}) {
  const a = useLoad(() => get<List<Attempt>>(`/webhooks/${webhookId}/events/${messageId}/attempts`), [messageId]);
  const msg = useLoad(() => get<{ payload: unknown }>(`/webhooks/${webhookId}/events/${messageId}`), [messageId]);
  const replay = useAction(async () => {
    await post(`/webhooks/${webhookId}/events/${messageId}/replay`);
    setTimeout(() => {
      a.reload();
      onReplay();
    }, 800);
  });
  return (
    <div class="attempts">
      {canReplay && (
        <button class="btn sm" onClick={() => replay.run()} disabled={replay.busy}>
          Replay
        </button>
      )}
      {replay.error && <Alert>{replay.error}</Alert>}
      {msg.data?.payload != null && (
        <details data-testid="request-body">
          <summary>Request body</summary>
          <Code>{JSON.stringify(msg.data.payload, null, 2)}</Code>
        </details>
      )}
      {!a.data ? (
        <Loading />
      ) : a.data.data.length === 0 ? (
        <p class="muted">No attempts yet.</p>
      ) : (
        a.data.data.map((t) => (
          <div key={t.id} class="attempt">
            <KV
              items={[
                ['Sent', fmtDate(t.sent_at)],
                ['HTTP status', t.http_status_code ? String(t.http_status_code) : 'no answer'],
                ['Latency', `${Math.round(t.duration_ms)} ms`],
                ...(t.error ? [['Error', `${t.error.type}: ${t.error.message}`] as [string, string]] : []),
              ]}
            />
            {t.response && <Code>{t.response.slice(0, 2000)}</Code>}
          </div>
        ))
      )}
    </div>
  );
}
