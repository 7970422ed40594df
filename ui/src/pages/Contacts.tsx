// Contacts: the team's addresses with their names and opt-out state, newest first. Owners and
// admins add contacts, edit names, unsubscribe or resubscribe and delete; members only read. A row
// opens the contact's page (segments, topics).
import { useState } from 'preact/hooks';
import { del, patch, post, qs } from '../api';
import { Link } from '../components/Link';
import { AgoCell, Alert, Badge, Empty, Loading, PagedTable, PageHead } from '../components/ui';
import { useAction, usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

interface Contact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  created_at: string;
}

/** A form's text field, trimmed; empty means "no value" (null clears a name). */
const field = (fd: FormData, k: string) => ((fd.get(k) as string | null) ?? '').trim() || null;
const fullName = (c: Contact) => [c.first_name, c.last_name].filter(Boolean).join(' ');

export function Contacts() {
  const { state } = useSession();
  const edit = canEdit(state);
  const list = usePaged<Contact>((after) => `/contacts${qs({ limit: 50, after })}`, '');
  const [editing, setEditing] = useState<string>();
  const [note, setNote] = useState<string>();
  const replace = (id: string, change: Partial<Contact>) =>
    list.setRows((rows) => rows.map((c) => (c.id === id ? { ...c, ...change } : c)));

  const add = useAction(async (form: HTMLFormElement) => {
    const fd = new FormData(form);
    const email = field(fd, 'email');
    const r = await post<{ id: string }>('/contacts', {
      email,
      first_name: field(fd, 'first_name'),
      last_name: field(fd, 'last_name'),
    });
    // A create with a known address answers with the existing contact and changes nothing.
    setNote(
      list.rows.some((c) => c.id === r.id) ? `${email} is already a contact; nothing changed (use Edit).` : undefined,
    );
    form.reset();
    list.reload();
  });
  const rename = useAction(async (c: Contact, form: HTMLFormElement) => {
    const fd = new FormData(form);
    const names = { first_name: field(fd, 'first_name'), last_name: field(fd, 'last_name') };
    await patch(`/contacts/${c.id}`, names);
    replace(c.id, names);
    setEditing(undefined);
  });
  const toggle = useAction(async (c: Contact) => {
    await patch(`/contacts/${c.id}`, { unsubscribed: !c.unsubscribed });
    replace(c.id, { unsubscribed: !c.unsubscribed });
  });
  const remove = useAction(async (c: Contact) => {
    if (!confirm(`Delete the contact ${c.email}?`)) return;
    await del(`/contacts/${c.id}`);
    list.setRows((rows) => rows.filter((x) => x.id !== c.id));
  });
  const rowError = rename.error ?? toggle.error ?? remove.error;
  const cols = edit ? 5 : 4;

  return (
    <>
      <PageHead title="Contacts" sub="The people you write to, and whether they still want your mail.">
        <Link class="btn" href="/contacts/imports">
          {edit ? 'Import CSV' : 'Imports'}
        </Link>
      </PageHead>
      {edit && (
        <form
          class="inline-form card"
          aria-label="Add a contact"
          onSubmit={(e) => {
            e.preventDefault();
            add.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <label class="field-inline">
            Email <input name="email" type="email" required placeholder="someone@example.com" />
          </label>
          <label class="field-inline">
            First name <input name="first_name" maxLength={256} size={14} />
          </label>
          <label class="field-inline">
            Last name <input name="last_name" maxLength={256} size={14} />
          </label>
          <button class="btn primary" disabled={add.busy}>
            Add contact
          </button>
          {add.error && <Alert>{add.error}</Alert>}
          {note && <Alert kind="info">{note}</Alert>}
        </form>
      )}
      {(list.error || rowError) && <Alert>{list.error ?? rowError}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty title="No contacts yet">
          {edit ? 'Add one above, or' : 'Owners and admins add them here, or'} create them through the API (
          <code>POST /contacts</code>, the SDK's <code>resend.contacts.create</code>).
        </Empty>
      ) : (
        <PagedTable
          list={list}
          testId="contacts"
          head={
            <>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              {edit && (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </>
          }
        >
          {list.rows.map((c) =>
            editing === c.id ? (
              <tr key={c.id}>
                <td colSpan={cols}>
                  <form
                    class="inline-form"
                    aria-label={`Edit ${c.email}`}
                    onSubmit={(e) => {
                      e.preventDefault();
                      rename.run(c, e.currentTarget as HTMLFormElement);
                    }}
                  >
                    <span class="strong">{c.email}</span>
                    <label class="field-inline">
                      First name{' '}
                      <input name="first_name" defaultValue={c.first_name ?? ''} maxLength={256} size={14} autoFocus />
                    </label>
                    <label class="field-inline">
                      Last name <input name="last_name" defaultValue={c.last_name ?? ''} maxLength={256} size={14} />
                    </label>
                    <button class="btn primary sm" disabled={rename.busy}>
                      Save
                    </button>
                    <button type="button" class="btn ghost sm" onClick={() => setEditing(undefined)}>
                      Cancel
                    </button>
                  </form>
                </td>
              </tr>
            ) : (
              <tr
                key={c.id}
                class="clickable"
                onClick={(e) => {
                  if (!(e.target as HTMLElement).closest('a, button')) navigate(`/contacts/${c.id}`);
                }}
              >
                <td class="ellipsis" title={c.email}>
                  <Link href={`/contacts/${c.id}`}>{c.email}</Link>
                </td>
                <td>{fullName(c) || <span class="muted">—</span>}</td>
                <td>
                  <Badge status={c.unsubscribed ? 'unsubscribed' : 'subscribed'} />
                </td>
                <AgoCell at={c.created_at} />
                {edit && (
                  <td class="right nowrap">
                    <button
                      class="btn ghost sm"
                      onClick={() => setEditing(c.id)}
                      aria-label={`Edit names of ${c.email}`}
                    >
                      Edit
                    </button>{' '}
                    <button
                      class="btn ghost sm"
                      onClick={() => toggle.run(c)}
                      disabled={toggle.busy}
                      aria-label={`${c.unsubscribed ? 'Resubscribe' : 'Unsubscribe'} ${c.email}`}
                    >
                      {c.unsubscribed ? 'Resubscribe' : 'Unsubscribe'}
                    </button>{' '}
                    <button class="btn ghost sm bad" onClick={() => remove.run(c)} aria-label={`Delete ${c.email}`}>
                      Delete
                    </button>
                  </td>
                )}
              </tr>
            ),
          )}
        </PagedTable>
      )}
    </>
  );
}
