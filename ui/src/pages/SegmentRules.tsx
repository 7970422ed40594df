// Rule-based segments in the dashboard: the create form's choice between a fixed list and rules,
// and a rule-based segment's page parts: its rule in words (edited by owners and admins in the
// builder, saved with PATCH /segments/:id {filter}), its capped count and its matching contacts.
import { useState } from 'preact/hooks';
import { get, patch, post, qs } from '../api';
import { allPages, fullName, textField, type ContactRow, type Segment, type Topic } from '../audience';
import { FilterEditor } from '../components/FilterEditor';
import { countText } from '../components/FilterPreview';
import { Link } from '../components/Link';
import { AgoCell, Alert, Badge, Loading, PagedTable } from '../components/ui';
import { describe, type PropertyDef, type Rule } from '../filter-model';
import { useAction, useLoad, usePaged } from '../hooks';
import { navigate } from '../router';

type Kind = 'list' | 'rules';
const KINDS: Record<Kind, { short: string; long: string }> = {
  list: { short: 'Fixed list', long: 'You add and remove its contacts one by one.' },
  rules: { short: 'Rule-based', long: 'Every contact matching your rules, kept up to date by itself.' },
};

export const kindOf = (s: Segment): Kind => (s.filter ? 'rules' : 'list');
export const KIND_WORDS = KINDS;

/** The create form: a name, the kind, and for rules the builder with its live count. */
export function CreateSegmentForm({ onCreated }: { onCreated: () => void }) {
  const [kind, setKind] = useState<Kind>('list');
  const [rule, setRule] = useState<{ filter?: Rule; problem?: string }>({});
  const create = useAction(async (form: HTMLFormElement) => {
    const name = textField(new FormData(form), 'name');
    if (kind === 'list') {
      await post('/segments', { name });
      form.reset();
      onCreated();
      return;
    }
    if (!rule.filter) throw new Error(rule.problem ?? 'Add at least one rule.');
    const made = await post<{ id: string }>('/segments', { name, filter: rule.filter });
    navigate(`/segments/${made.id}`);
  });
  return (
    <form
      class="card segment-create"
      aria-label="Create a segment"
      onSubmit={(e) => {
        e.preventDefault();
        create.run(e.currentTarget as HTMLFormElement);
      }}
    >
      <div class="inline-form">
        <label class="field-inline grow">
          Name <input name="name" required maxLength={256} placeholder="Newsletter readers" class="grow" />
        </label>
        <button class="btn primary" disabled={create.busy}>
          Create segment
        </button>
      </div>
      <fieldset class="choices">
        <legend>Kind</legend>
        {(Object.keys(KINDS) as Kind[]).map((k) => (
          <label key={k} class="choice">
            <input type="radio" name="kind" value={k} checked={kind === k} onChange={() => setKind(k)} />
            <span>
              <strong>{KINDS[k].short}</strong>
              <span class="muted small">{KINDS[k].long}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {kind === 'rules' && <FilterEditor onChange={(filter, problem) => setRule({ filter, problem })} />}
      {create.error && <Alert>{create.error}</Alert>}
    </form>
  );
}

/** The names a rule's ids stand for, and the team's properties (to word values by type). */
function useRuleNames() {
  return useLoad(async () => {
    const [topics, segments, props] = await Promise.all([
      allPages<Topic>(get, '/topics'),
      allPages<Segment>(get, '/segments'),
      get<{ data: PropertyDef[] }>('/contact-properties'),
    ]);
    return {
      names: {
        topics: new Map(topics.map((t) => [t.id, t.name])),
        segments: new Map(segments.map((s) => [s.id, s.name])),
      },
      props: props.data,
    };
  }, []);
}

/** A rule-based segment's rule: in words for everyone, in the builder for owners and admins. */
export function SegmentRule({ segment, edit, onSaved }: { segment: Segment; edit: boolean; onSaved: () => void }) {
  const names = useRuleNames();
  const [editing, setEditing] = useState(false);
  const [rule, setRule] = useState<{ filter?: Rule; problem?: string }>({});
  const save = useAction(async () => {
    if (!rule.filter) throw new Error(rule.problem ?? 'Add at least one rule.');
    await patch(`/segments/${segment.id}`, { filter: rule.filter });
    setEditing(false);
    onSaved();
  });
  return (
    <section class="card" aria-labelledby="rule-h">
      <div class="section-head">
        <h2 id="rule-h">Rule</h2>
        {edit && !editing && (
          <button class="btn sm" onClick={() => setEditing(true)}>
            Edit rule
          </button>
        )}
      </div>
      {editing ? (
        <form
          aria-label="Edit the rule"
          onSubmit={(e) => {
            e.preventDefault();
            save.run();
          }}
        >
          <FilterEditor initial={segment.filter} onChange={(filter, problem) => setRule({ filter, problem })} />
          <div class="inline-form">
            <button class="btn primary" disabled={save.busy}>
              Save rule
            </button>
            <button type="button" class="btn ghost" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
          {save.error && <Alert>{save.error}</Alert>}
        </form>
      ) : names.data ? (
        <p class="rule-words" data-testid="segment-rule">
          {describe(segment.filter, names.data.names, names.data.props)}
        </p>
      ) : names.error ? (
        <Alert>{names.error}</Alert>
      ) : (
        <Loading />
      )}
    </section>
  );
}

/** The contacts a rule-based segment matches now (paged), with its count; no membership controls. */
export function SegmentMatches({ segment }: { segment: Segment }) {
  const list = usePaged<ContactRow>(
    (after) => `/segments/${segment.id}/contacts${qs({ limit: 50, after })}`,
    `${segment.id}:${JSON.stringify(segment.filter)}`,
  );
  const count = segment.contacts_count ?? 0;
  return (
    <section class="card" aria-labelledby="matches-h">
      <div class="section-head">
        <h2 id="matches-h">Contacts</h2>
        <span class="muted" data-testid="segment-count">
          {countText(count, segment.contacts_count_capped)}{' '}
          {count === 1 && !segment.contacts_count_capped ? 'contact matches' : 'contacts match'} now
        </span>
      </div>
      {list.error && <Alert>{list.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <p class="muted">No contact matches this rule yet.</p>
      ) : (
        <PagedTable
          list={list}
          testId="segment-contacts"
          head={
            <>
              <th scope="col">Email</th>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
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
              <AgoCell at={c.created_at} />
            </tr>
          ))}
        </PagedTable>
      )}
    </section>
  );
}
