// The Contacts page's "Add a contact" form (owners and admins). A create with a known address
// answers with the existing contact and changes nothing: the page says so.
import { useState } from 'preact/hooks';
import { post } from '../api';
import { useAction } from '../hooks';
import { Alert } from './ui';

/** A form's text field, trimmed; empty means "no value" (null clears a name). */
export const field = (fd: FormData, k: string) => ((fd.get(k) as string | null) ?? '').trim() || null;

export function ContactAddForm(props: { known: (id: string) => boolean; onAdded: () => void }) {
  const [note, setNote] = useState<string>();
  const add = useAction(async (form: HTMLFormElement) => {
    const fd = new FormData(form);
    const email = field(fd, 'email');
    const r = await post<{ id: string }>('/contacts', {
      email,
      first_name: field(fd, 'first_name'),
      last_name: field(fd, 'last_name'),
    });
    setNote(props.known(r.id) ? `${email} is already a contact; nothing changed (use Edit).` : undefined);
    form.reset();
    props.onAdded();
  });
  return (
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
  );
}
