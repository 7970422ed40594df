// One row of the Contacts table: a checkbox for bulk actions, address, name, chosen property
// columns, status, age; for owners and admins Edit (names in place), Unsubscribe/Resubscribe, Delete.
import { patch } from '../api';
import { navigate } from '../router';
import { Link } from './Link';
import { AgoCell, Badge } from './ui';
import { field } from './ContactAddForm';

export interface Contact {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  unsubscribed: boolean;
  created_at: string;
  properties?: Record<string, string | number | null>;
}

const fullName = (c: Contact) => [c.first_name, c.last_name].filter(Boolean).join(' ');

export function ContactEditRow(props: {
  c: Contact;
  cols: number;
  busy: boolean;
  onSave: (names: { first_name: string | null; last_name: string | null }) => void;
  onCancel: () => void;
}) {
  const { c } = props;
  return (
    <tr>
      <td colSpan={props.cols}>
        <form
          class="inline-form"
          aria-label={`Edit ${c.email}`}
          onSubmit={(e) => {
            e.preventDefault();
            const fd = new FormData(e.currentTarget as HTMLFormElement);
            props.onSave({ first_name: field(fd, 'first_name'), last_name: field(fd, 'last_name') });
          }}
        >
          <span class="strong">{c.email}</span>
          <label class="field-inline">
            First name <input name="first_name" defaultValue={c.first_name ?? ''} maxLength={256} size={14} autoFocus />
          </label>
          <label class="field-inline">
            Last name <input name="last_name" defaultValue={c.last_name ?? ''} maxLength={256} size={14} />
          </label>
          <button class="btn primary sm" disabled={props.busy}>
            Save
          </button>
          <button type="button" class="btn ghost sm" onClick={props.onCancel}>
            Cancel
          </button>
        </form>
      </td>
    </tr>
  );
}

export function ContactRow(props: {
  c: Contact;
  columns: string[];
  edit: boolean;
  checked: boolean;
  onCheck: (on: boolean) => void;
  onEdit: () => void;
  onToggle: () => void;
  onDelete: () => void;
  busy: boolean;
}) {
  const { c } = props;
  return (
    <tr
      class="clickable"
      onClick={(e) => {
        if (!(e.target as HTMLElement).closest('a, button, input, label')) navigate(`/contacts/${c.id}`);
      }}
    >
      <td class="pick">
        <input
          type="checkbox"
          checked={props.checked}
          onChange={(e) => props.onCheck(e.currentTarget.checked)}
          aria-label={`Choose ${c.email}`}
        />
      </td>
      <td class="ellipsis" title={c.email}>
        <Link href={`/contacts/${c.id}`}>{c.email}</Link>
      </td>
      <td>{fullName(c) || <span class="muted">—</span>}</td>
      {props.columns.map((k) => (
        <td key={k} class="nowrap">
          {c.properties?.[k] ?? <span class="muted">—</span>}
        </td>
      ))}
      <td>
        <Badge status={c.unsubscribed ? 'unsubscribed' : 'subscribed'} />
      </td>
      <AgoCell at={c.created_at} />
      {props.edit && (
        <td class="right nowrap">
          <button class="btn ghost sm" onClick={props.onEdit} aria-label={`Edit names of ${c.email}`}>
            Edit
          </button>{' '}
          <button
            class="btn ghost sm"
            onClick={props.onToggle}
            disabled={props.busy}
            aria-label={`${c.unsubscribed ? 'Resubscribe' : 'Unsubscribe'} ${c.email}`}
          >
            {c.unsubscribed ? 'Resubscribe' : 'Unsubscribe'}
          </button>{' '}
          <button class="btn ghost sm bad" onClick={props.onDelete} aria-label={`Delete ${c.email}`}>
            Delete
          </button>
        </td>
      )}
    </tr>
  );
}

export const saveNames = (c: Contact, names: { first_name: string | null; last_name: string | null }) =>
  patch(`/contacts/${c.id}`, names);
