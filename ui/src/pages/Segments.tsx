// Segments: the team's named lists of contacts (paged), created, renamed and deleted by owners and
// admins; a fixed list's page lists its members, adds a contact by address and removes one; a
// rule-based segment's page shows its rule and the contacts it matches (SegmentRules.tsx).
// Members (the team role) only read. The list shows each segment's size (fixed lists too).
import { useState } from 'preact/hooks';
import { ApiError, del, get, patch, post, qs } from '../api';
import { fullName, textField, type ContactRow, type Segment } from '../audience';
import { Link } from '../components/Link';
import { AgoCell, Alert, Badge, Empty, KV, Loading, PagedTable, PageHead } from '../components/ui';
import { fmtDate, num } from '../format';
import { useAction, useLoad, usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';
import { CreateSegmentForm, KIND_WORDS, kindOf, SegmentMatches, SegmentRule } from './SegmentRules';

const deleteQuestion = (s: Segment) => `Delete the segment "${s.name}"? Its contacts stay; only the list goes.`;

function RenameForm({
  segment,
  onDone,
  onCancel,
}: {
  segment: Segment;
  onDone: (name: string) => void;
  onCancel: () => void;
}) {
  const rename = useAction(async (form: HTMLFormElement) => {
    const name = textField(new FormData(form), 'name');
    await patch(`/segments/${segment.id}`, { name });
    onDone(name ?? segment.name);
  });
  return (
    <form
      class="inline-form"
      aria-label={`Rename ${segment.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        rename.run(e.currentTarget as HTMLFormElement);
      }}
    >
      <label class="field-inline">
        Name <input name="name" defaultValue={segment.name} required maxLength={256} size={24} autoFocus />
      </label>
      <button class="btn primary sm" disabled={rename.busy}>
        Save
      </button>
      <button type="button" class="btn ghost sm" onClick={onCancel}>
        Cancel
      </button>
      {rename.error && <Alert>{rename.error}</Alert>}
    </form>
  );
}

export function Segments() {
  const { state } = useSession();
  const edit = canEdit(state);
  const list = usePaged<Segment>((after) => `/segments${qs({ limit: 50, after, counts: 'true' })}`, '');
  const [editing, setEditing] = useState<string>();
  const remove = useAction(async (s: Segment) => {
    if (!confirm(deleteQuestion(s))) return;
    await del(`/segments/${s.id}`);
    list.setRows((rows) => rows.filter((x) => x.id !== s.id));
  });
  const cols = edit ? 5 : 4;
  return (
    <div class="audience">
      <PageHead
        title="Segments"
        sub="Named lists of contacts to send broadcasts to. A contact can be in many segments."
      />
      {edit && <CreateSegmentForm onCreated={list.reload} />}
      {(list.error || remove.error) && <Alert>{list.error ?? remove.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty title="No segments yet">
          {edit
            ? "Create one above, then add contacts to it from its page or from a contact's page."
            : 'Owners and admins create them here.'}{' '}
          Through the API: <code>POST /segments</code> (the SDK's <code>resend.segments.create</code>).
        </Empty>
      ) : (
        <PagedTable
          list={list}
          testId="segments"
          head={
            <>
              <th scope="col">Name</th>
              <th scope="col">Kind</th>
              <th scope="col" class="right">
                Contacts
              </th>
              <th scope="col">Created</th>
              {edit && (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </>
          }
        >
          {list.rows.map((s) =>
            editing === s.id ? (
              <tr key={s.id}>
                <td colSpan={cols}>
                  <RenameForm
                    segment={s}
                    onCancel={() => setEditing(undefined)}
                    onDone={(name) => {
                      list.setRows((rows) => rows.map((x) => (x.id === s.id ? { ...x, name } : x)));
                      setEditing(undefined);
                    }}
                  />
                </td>
              </tr>
            ) : (
              <tr key={s.id}>
                <td class="ellipsis">
                  <Link href={`/segments/${s.id}`}>{s.name}</Link>
                </td>
                <td class="nowrap">{KIND_WORDS[kindOf(s)].short}</td>
                <td
                  class="right nowrap"
                  data-testid="segment-count"
                  title={s.contacts_count === null ? 'Too slow to count in the list: open the segment' : undefined}
                >
                  {s.contacts_count === null || s.contacts_count === undefined
                    ? '—'
                    : `${num(s.contacts_count)}${s.contacts_count_capped ? '+' : ''}`}
                </td>
                <AgoCell at={s.created_at} />
                {edit && (
                  <td class="right nowrap">
                    <button class="btn ghost sm" onClick={() => setEditing(s.id)} aria-label={`Rename ${s.name}`}>
                      Rename
                    </button>{' '}
                    <button class="btn ghost sm bad" onClick={() => remove.run(s)} aria-label={`Delete ${s.name}`}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ),
          )}
        </PagedTable>
      )}
    </div>
  );
}

export function SegmentDetail({ id }: { id: string }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const seg = useLoad(() => get<Segment>(`/segments/${encodeURIComponent(id)}`), [id]);
  const [renaming, setRenaming] = useState(false);
  const remove = useAction(async () => {
    if (!seg.data || !confirm(deleteQuestion(seg.data))) return;
    await del(`/segments/${id}`);
    navigate('/segments');
  });
  const back = (
    <p>
      <Link href="/segments">← Segments</Link>
    </p>
  );
  if (seg.error)
    return (
      <>
        {back}
        <Alert>{seg.error}</Alert>
      </>
    );
  if (!seg.data) return <Loading />;
  const s = seg.data;
  return (
    <div class="audience">
      {back}
      <PageHead
        title={s.name}
        sub={
          s.filter
            ? 'Rule-based: every contact matching the rule, kept up to date by itself.'
            : "A list of contacts: add and remove them here or on a contact's page."
        }
      >
        {edit && !renaming && (
          <button class="btn" onClick={() => setRenaming(true)}>
            Rename
          </button>
        )}
        {edit && (
          <button class="btn bad ghost" onClick={() => remove.run()} disabled={remove.busy}>
            Delete segment
          </button>
        )}
      </PageHead>
      {renaming && (
        <section class="card">
          <RenameForm
            segment={s}
            onCancel={() => setRenaming(false)}
            onDone={() => {
              setRenaming(false);
              seg.reload();
            }}
          />
        </section>
      )}
      {remove.error && <Alert>{remove.error}</Alert>}
      <section class="card">
        <KV
          items={[
            ['Kind', KIND_WORDS[kindOf(s)].short],
            ['Created', fmtDate(s.created_at)],
            ['ID', <code>{s.id}</code>],
          ]}
        />
      </section>
      {s.filter ? (
        <>
          <SegmentRule segment={s} edit={edit} onSaved={seg.reload} />
          <SegmentMatches segment={s} />
        </>
      ) : (
        <SegmentMembers segment={s} edit={edit} />
      )}
    </div>
  );
}

/** The members of a list segment (paged), adding one by address and removing one. */
function SegmentMembers({ segment, edit }: { segment: Segment; edit: boolean }) {
  const list = usePaged<ContactRow>(
    (after) => `/segments/${segment.id}/contacts${qs({ limit: 50, after })}`,
    segment.id,
  );
  const [missing, setMissing] = useState<string>();
  const add = useAction(async (form: HTMLFormElement) => {
    const email = textField(new FormData(form), 'email');
    if (!email) return;
    setMissing(undefined);
    try {
      await post(`/contacts/${encodeURIComponent(email)}/segments/${segment.id}`);
    } catch (e) {
      if (e instanceof ApiError && e.status === 404 && e.message === 'Contact not found') {
        setMissing(email);
        return;
      }
      throw e;
    }
    form.reset();
    list.reload();
  });
  const createAndAdd = useAction(async (email: string) => {
    await post('/contacts', { email, segments: [{ id: segment.id }] });
    setMissing(undefined);
    (document.getElementById('member-email') as HTMLInputElement | null)?.form?.reset();
    list.reload();
  });
  const remove = useAction(async (c: ContactRow) => {
    await del(`/contacts/${c.id}/segments/${segment.id}`);
    list.setRows((rows) => rows.filter((x) => x.id !== c.id));
  });
  return (
    <section class="card" aria-labelledby="members-h">
      <h2 id="members-h">Members</h2>
      {edit && (
        <form
          class="inline-form"
          aria-label="Add a contact to this segment"
          onSubmit={(e) => {
            e.preventDefault();
            add.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <label class="sr-only" for="member-email">
            Contact's email
          </label>
          <input id="member-email" name="email" type="email" required placeholder="someone@example.com" class="grow" />
          <button class="btn" disabled={add.busy}>
            Add to segment
          </button>
          {add.error && <Alert>{add.error}</Alert>}
          {missing && (
            <Alert kind="info">
              No contact has the address {missing}.{' '}
              <button
                type="button"
                class="btn sm"
                onClick={() => createAndAdd.run(missing)}
                disabled={createAndAdd.busy}
              >
                Create the contact and add it
              </button>
              {createAndAdd.error && <> {createAndAdd.error}</>}
            </Alert>
          )}
        </form>
      )}
      {(list.error || remove.error) && <Alert>{list.error ?? remove.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <p class="muted">No contacts in this segment yet.{edit ? ' Add one by address above.' : ''}</p>
      ) : (
        <PagedTable
          list={list}
          testId="segment-members"
          head={
            <>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              {edit && (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </>
          }
        >
          {list.rows.map((c) => (
            <tr key={c.id}>
              <td class="ellipsis">
                <Link href={`/contacts/${c.id}`} title={c.email}>
                  {c.email}
                </Link>
              </td>
              <td>{fullName(c) || <span class="muted">—</span>}</td>
              <td>
                <Badge status={c.unsubscribed ? 'unsubscribed' : 'subscribed'} />
              </td>
              {edit && (
                <td class="right">
                  <button
                    class="btn ghost sm"
                    onClick={() => remove.run(c)}
                    disabled={remove.busy}
                    aria-label={`Remove ${c.email} from the segment`}
                  >
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </PagedTable>
      )}
    </section>
  );
}
