// Contacts: the team's addresses, newest first, found by part of an address or name and filtered
// by segment, topic, subscription and property (the URL query holds the filters), with the total
// count, chosen property columns (remembered on this browser) and bulk actions on the chosen rows
// or on everything that matches. Owners and admins add, edit, unsubscribe and delete; members read
// and export. A row opens the contact's page (segments, topics). Pieces in components/Contact*.tsx.
import { useMemo, useState } from 'preact/hooks';
import { del, get, patch, type List } from '../api';
import { Link } from '../components/Link';
import { Alert, Empty, Loading, PagedTable, PageHead } from '../components/ui';
import { ContactAddForm } from '../components/ContactAddForm';
import { ContactBulkBar } from '../components/ContactBulkBar';
import { ContactColumns } from '../components/ContactColumns';
import { ContactFilters, type Named, type Property } from '../components/ContactFilters';
import { ContactEditRow, ContactRow, saveNames, type Contact } from '../components/ContactRow';
import { filtersOf, isFiltered, matchOf, matchQuery, savedColumns } from '../contact-query';
import { num } from '../format';
import { useAction, useLoad, usePaged } from '../hooks';
import { canEdit, useSession } from '../session';

export function Contacts({ query }: { query: URLSearchParams }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const f = filtersOf(query);
  const lists = useLoad(
    () =>
      Promise.all([
        get<List<Named & { filter: unknown }>>('/segments'),
        get<List<Named>>('/topics?limit=100'),
        get<List<Property>>('/contact-properties'),
      ]),
    [],
  );
  const [segments, topics, properties] = lists.data ?? [undefined, undefined, undefined];
  const numberProps = useMemo(
    () => new Set((properties?.data ?? []).filter((p) => p.type === 'number').map((p) => p.key)),
    [properties],
  );
  const [columns, setColumns] = useState<string[]>(savedColumns);
  const shown = columns.filter((k) => !properties || properties.data.some((p) => p.key === k));
  const key = `${matchQuery(f, numberProps)}|${shown.join(',')}`;
  const list = usePaged<Contact>(
    (after) => `/contacts${matchQuery(f, numberProps, { limit: 50, after, properties: shown.join(',') || undefined })}`,
    key,
  );
  const [tick, setTick] = useState(0);
  const total = useLoad(
    () => get<{ count: number; capped: boolean }>(`/contacts/count${matchQuery(f, numberProps)}`),
    [key, tick],
  );
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [all, setAll] = useState(false);
  const [selKey, setSelKey] = useState(key);
  if (selKey !== key) {
    // new filters: a new selection
    setSelKey(key);
    setChosen(new Set());
    setAll(false);
  }
  const [editing, setEditing] = useState<string>();
  const replace = (id: string, change: Partial<Contact>) =>
    list.setRows((rows) => rows.map((c) => (c.id === id ? { ...c, ...change } : c)));
  const [note, setNote] = useState<string>();
  const refresh = () => {
    list.reload();
    setTick((n) => n + 1);
    setChosen(new Set());
    setAll(false);
  };

  const rename = useAction(async (c: Contact, names: { first_name: string | null; last_name: string | null }) => {
    await saveNames(c, names);
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
    setTick((n) => n + 1);
  });
  const rowError = rename.error ?? toggle.error ?? remove.error;
  const cols = 5 + shown.length + (edit ? 1 : 0);
  const check = (id: string, on: boolean) =>
    setChosen((s) => {
      const n = new Set(s);
      if (on) n.add(id);
      else n.delete(id);
      return n;
    });
  const everyShown = list.rows.length > 0 && list.rows.every((c) => chosen.has(c.id));
  const count = total.data?.count;

  return (
    <>
      <PageHead title="Contacts" sub="The people you write to, and whether they still want your mail.">
        <Link class="btn" href="/contacts/imports">
          {edit ? 'Import CSV' : 'Imports'}
        </Link>
      </PageHead>
      {edit && <ContactAddForm known={(id) => list.rows.some((c) => c.id === id)} onAdded={refresh} />}
      <ContactFilters
        f={f}
        segments={segments?.data ?? []}
        topics={topics?.data ?? []}
        properties={properties?.data ?? []}
      />
      <div class="list-head">
        <span data-testid="contacts-total" class="strong">
          {count === undefined
            ? 'Counting…'
            : `${num(count)}${total.data?.capped ? '+' : ''} contact${count === 1 ? '' : 's'}${isFiltered(f) ? ' match' : ''}`}
        </span>
        {count !== undefined && count > 0 && (
          <label class="check small">
            <input type="checkbox" checked={all} onChange={(e) => setAll(e.currentTarget.checked)} />
            Act on all {num(count)} matching
          </label>
        )}
        <ContactColumns properties={properties?.data ?? []} chosen={shown} onChange={setColumns} />
      </div>
      {(all || chosen.size > 0) && (
        <ContactBulkBar
          selected={[...chosen]}
          all={all}
          total={count}
          match={matchOf(f, numberProps)}
          exportQuery={matchQuery(f, numberProps, { properties: shown.join(',') || undefined })}
          columns={shown}
          segments={(segments?.data ?? []).filter((s) => !s.filter)}
          topics={topics?.data ?? []}
          onDone={(n) => {
            setNote(n);
            refresh();
          }}
          onNote={setNote}
          readOnly={!edit}
        />
      )}
      {note && (
        <Alert kind="info">
          <span data-testid="bulk-note">{note}</span>
        </Alert>
      )}
      {(list.error || rowError || total.error) && <Alert>{list.error ?? rowError ?? total.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        isFiltered(f) ? (
          <Empty title="No contacts match">Change the search or the filters.</Empty>
        ) : (
          <Empty title="No contacts yet">
            {edit ? 'Add one above, or' : 'Owners and admins add them here, or'} create them through the API (
            <code>POST /contacts</code>, the SDK's <code>resend.contacts.create</code>).
          </Empty>
        )
      ) : (
        <PagedTable
          list={list}
          testId="contacts"
          head={
            <>
              <th scope="col" class="pick">
                <input
                  type="checkbox"
                  checked={everyShown}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    setChosen(on ? new Set(list.rows.map((c) => c.id)) : new Set());
                    if (!on) setAll(false);
                  }}
                  aria-label="Choose every contact shown"
                />
              </th>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              {shown.map((k) => (
                <th scope="col" key={k}>
                  {k}
                </th>
              ))}
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
              <ContactEditRow
                key={c.id}
                c={c}
                cols={cols}
                busy={rename.busy}
                onSave={(names) => rename.run(c, names)}
                onCancel={() => setEditing(undefined)}
              />
            ) : (
              <ContactRow
                key={c.id}
                c={c}
                columns={shown}
                edit={edit}
                checked={all || chosen.has(c.id)}
                onCheck={(on) => check(c.id, on)}
                onEdit={() => setEditing(c.id)}
                onToggle={() => toggle.run(c)}
                onDelete={() => remove.run(c)}
                busy={toggle.busy}
              />
            ),
          )}
        </PagedTable>
      )}
    </>
  );
}
