// The Inboxes page's first view: the team's inboxes (unread counts, last mail) and the form to
// create one on an address of a receiving domain; each inbox renamed (name, from name) in place.
import { useState } from 'preact/hooks';
import { get, patch, post, type List } from '../../api';
import { Alert, Empty, ErrorRetry, Loading, PageHead } from '../../components/ui';
import { Link } from '../../components/Link';
import { ago } from '../../format';
import { useAction, useLoad } from '../../hooks';
import { inboxPath, readAll, type Inbox } from './types';

interface Domain {
  id: string;
  name: string;
  capabilities?: { receiving?: string };
}

export function InboxList() {
  const inboxes = useLoad(() => readAll<Inbox>('/inboxes', 10), []);
  const domains = useLoad(() => get<List<Domain>>('/domains?limit=100'), []);
  const receiving = (domains.data?.data ?? []).filter((d) => d.capabilities?.receiving === 'enabled');
  return (
    <>
      <PageHead
        title="Inboxes"
        sub="Shared mailboxes on your receiving domains: read, answer and file conversations."
      />
      {inboxes.error && <ErrorRetry error={inboxes.error} status={inboxes.errorStatus} retry={inboxes.reload} />}
      {!inboxes.data ? (
        !inboxes.error && <Loading />
      ) : inboxes.data.length === 0 ? (
        <Empty title="No inboxes yet">
          Create one below on an address of a domain that receives mail (its MX record verified).
        </Empty>
      ) : (
        <ul class="inbox-cards" data-testid="inboxes">
          {inboxes.data.map((i) => (
            <InboxCard key={i.id} inbox={i} changed={inboxes.reload} />
          ))}
        </ul>
      )}
      <CreateInbox domains={receiving} created={inboxes.reload} />
    </>
  );
}

function InboxCard({ inbox: i, changed }: { inbox: Inbox; changed: () => void }) {
  const [editing, setEditing] = useState(false);
  const save = useAction(async (form: HTMLFormElement) => {
    const f = new FormData(form);
    await patch(inboxPath(i.id), {
      name: String(f.get('name')) || null,
      from_name: String(f.get('from_name')) || null,
    });
    setEditing(false);
    changed();
  });
  return (
    <li class="card inbox-card">
      <div class="inbox-card-head">
        <Link href={inboxPath(i.id)} class="strong">
          {i.name || i.email_address}
        </Link>
        {i.unread > 0 && (
          <span class="badge info" aria-label={`${i.unread} unread`}>
            {i.unread} unread
          </span>
        )}
      </div>
      <p class="muted small">
        {i.email_address}
        {i.from_name ? ` · sends as “${i.from_name}”` : ''} ·{' '}
        {i.last_received ? `last mail ${ago(i.last_received)}` : 'no mail yet'}
      </p>
      {editing ? (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            save.run(e.currentTarget);
          }}
        >
          <input name="name" aria-label="Inbox name" placeholder="Name" defaultValue={i.name ?? ''} maxLength={200} />
          <input
            name="from_name"
            aria-label="From name"
            placeholder="From name"
            defaultValue={i.from_name ?? ''}
            maxLength={200}
          />
          <button class="btn primary" disabled={save.busy}>
            Save
          </button>
          <button type="button" class="btn ghost" onClick={() => setEditing(false)}>
            Cancel
          </button>
          {save.error && <Alert>{save.error}</Alert>}
        </form>
      ) : (
        <button type="button" class="btn sm" onClick={() => setEditing(true)} aria-label={`Rename ${i.email_address}`}>
          Rename
        </button>
      )}
    </li>
  );
}

function CreateInbox({ domains, created }: { domains: Domain[]; created: () => void }) {
  const create = useAction(async (form: HTMLFormElement) => {
    const f = new FormData(form);
    const address = `${String(f.get('local')).trim()}@${String(f.get('domain'))}`;
    await post('/inboxes', {
      email_address: address,
      ...(f.get('name') ? { name: String(f.get('name')) } : {}),
      ...(f.get('from_name') ? { from_name: String(f.get('from_name')) } : {}),
    });
    form.reset();
    created();
  });
  return (
    <section class="card" aria-labelledby="new-inbox">
      <h2 id="new-inbox">New inbox</h2>
      {domains.length === 0 ? (
        <p class="muted">
          No domain receives mail yet: turn on receiving on a <Link href="/domains">domain</Link> and verify its MX
          record first.
        </p>
      ) : (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            create.run(e.currentTarget);
          }}
        >
          <span class="address-input">
            <input name="local" aria-label="Address" placeholder="support" required maxLength={64} />
            <span>@</span>
            <select name="domain" aria-label="Domain">
              {domains.map((d) => (
                <option key={d.id} value={d.name}>
                  {d.name}
                </option>
              ))}
            </select>
          </span>
          <input name="name" aria-label="Name" placeholder="Name (optional)" maxLength={200} />
          <input name="from_name" aria-label="Sends as" placeholder="From name (optional)" maxLength={200} />
          <button class="btn primary" disabled={create.busy}>
            Create inbox
          </button>
          {create.error && <Alert>{create.error}</Alert>}
        </form>
      )}
    </section>
  );
}
