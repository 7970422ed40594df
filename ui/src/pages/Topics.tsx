// Topics: the kinds of mail a contact can opt in to or out of (newsletter, product updates...).
// Owners and admins create them (the default subscription is chosen once, here, and fixed), edit
// name, description and visibility, and delete them; members only read.
import { useState } from 'preact/hooks';
import { del, patch, post, qs } from '../api';
import { DEFAULT_WORDS, textField, VISIBILITY_WORDS, type Subscription, type Topic } from '../audience';
import { AgoCell, Alert, Empty, Loading, PagedTable, PageHead } from '../components/ui';
import { useAction, usePaged } from '../hooks';
import { canEdit, useSession } from '../session';

function Choices<T extends string>({
  legend,
  name,
  words,
  initial,
  hint,
}: {
  legend: string;
  name: string;
  words: Record<T, { short: string; long: string }>;
  initial: T;
  hint?: string;
}) {
  return (
    <fieldset class="choices">
      <legend>{legend}</legend>
      {(Object.keys(words) as T[]).map((v) => (
        <label key={v} class="choice">
          <input type="radio" name={name} value={v} defaultChecked={v === initial} />
          <span>
            <strong>{words[v].short}</strong>
            <span class="muted small">{words[v].long}</span>
          </span>
        </label>
      ))}
      {hint && <p class="hint">{hint}</p>}
    </fieldset>
  );
}

function EditRow({
  topic,
  cols,
  onDone,
  onCancel,
}: {
  topic: Topic;
  cols: number;
  onDone: (t: Topic) => void;
  onCancel: () => void;
}) {
  const save = useAction(async (form: HTMLFormElement) => {
    const fd = new FormData(form);
    const change = {
      name: textField(fd, 'name') ?? topic.name,
      description: textField(fd, 'description'),
      visibility: fd.get('visibility') as Topic['visibility'],
    };
    await patch(`/topics/${topic.id}`, change);
    onDone({ ...topic, ...change });
  });
  return (
    <tr>
      <td colSpan={cols}>
        <form
          aria-label={`Edit ${topic.name}`}
          onSubmit={(e) => {
            e.preventDefault();
            save.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <div class="field">
            <label for={`tn-${topic.id}`}>Name</label>
            <input id={`tn-${topic.id}`} name="name" defaultValue={topic.name} required maxLength={50} autoFocus />
          </div>
          <div class="field">
            <label for={`td-${topic.id}`}>Description</label>
            <input id={`td-${topic.id}`} name="description" defaultValue={topic.description ?? ''} maxLength={200} />
          </div>
          <p class="fixed-value">
            <span class="muted">Default subscription (fixed):</span>{' '}
            <strong>{DEFAULT_WORDS[topic.default_subscription].short}</strong>
          </p>
          <Choices legend="Visibility" name="visibility" words={VISIBILITY_WORDS} initial={topic.visibility} />
          {save.error && <Alert>{save.error}</Alert>}
          <div class="row">
            <button class="btn primary sm" disabled={save.busy}>
              Save
            </button>
            <button type="button" class="btn ghost sm" onClick={onCancel}>
              Cancel
            </button>
          </div>
        </form>
      </td>
    </tr>
  );
}

export function Topics() {
  const { state } = useSession();
  const edit = canEdit(state);
  const list = usePaged<Topic>((after) => `/topics${qs({ limit: 50, after })}`, '');
  const [editing, setEditing] = useState<string>();
  const create = useAction(async (form: HTMLFormElement) => {
    const fd = new FormData(form);
    await post('/topics', {
      name: textField(fd, 'name'),
      description: textField(fd, 'description') ?? undefined,
      default_subscription: fd.get('default_subscription') as Subscription,
      visibility: fd.get('visibility'),
    });
    form.reset();
    list.reload();
  });
  const remove = useAction(async (t: Topic) => {
    if (
      !confirm(
        `Delete the topic "${t.name}"? Contacts' choices for it are forgotten, and sends that name it are refused.`,
      )
    )
      return;
    await del(`/topics/${t.id}`);
    list.setRows((rows) => rows.filter((x) => x.id !== t.id));
  });
  const cols = edit ? 5 : 4;
  return (
    <div class="audience">
      <PageHead title="Topics" sub="Kinds of mail a contact can opt in to or out of, without leaving all your mail." />
      {edit && (
        <details class="card" open={list.loaded && list.rows.length === 0}>
          <summary>Add a topic</summary>
          <form
            aria-label="Add a topic"
            onSubmit={(e) => {
              e.preventDefault();
              create.run(e.currentTarget as HTMLFormElement);
            }}
          >
            <div class="field">
              <label for="topic-name">Name</label>
              <input id="topic-name" name="name" required maxLength={50} placeholder="Product updates" />
            </div>
            <div class="field">
              <label for="topic-desc">Description</label>
              <input id="topic-desc" name="description" maxLength={200} placeholder="What's new, once a month" />
              <p class="hint">Shown to contacts on the preference page.</p>
            </div>
            <Choices
              legend="Default subscription"
              name="default_subscription"
              words={DEFAULT_WORDS}
              initial="opt_in"
              hint="For contacts who never chose. It cannot be changed once the topic exists."
            />
            <Choices legend="Visibility" name="visibility" words={VISIBILITY_WORDS} initial="private" />
            {create.error && <Alert>{create.error}</Alert>}
            <button class="btn primary" disabled={create.busy}>
              Add topic
            </button>
          </form>
        </details>
      )}
      {(list.error || remove.error) && <Alert>{list.error ?? remove.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <Empty title="No topics yet">
          {edit ? 'Add one above.' : 'Owners and admins add them here.'} Through the API: <code>POST /topics</code> (the
          SDK's <code>resend.topics.create</code>); an email names its topic with <code>topic_id</code>.
        </Empty>
      ) : (
        <PagedTable
          list={list}
          testId="topics"
          head={
            <>
              <th scope="col">Topic</th>
              <th scope="col">Default</th>
              <th scope="col">Visibility</th>
              <th scope="col">Created</th>
              {edit && (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </>
          }
        >
          {list.rows.map((t) =>
            editing === t.id ? (
              <EditRow
                key={t.id}
                topic={t}
                cols={cols}
                onCancel={() => setEditing(undefined)}
                onDone={(next) => {
                  list.setRows((rows) => rows.map((x) => (x.id === t.id ? next : x)));
                  setEditing(undefined);
                }}
              />
            ) : (
              <tr key={t.id}>
                <td class="desc">
                  <span class="strong">{t.name}</span>
                  {t.description && <div class="muted small">{t.description}</div>}
                </td>
                <td class="small" title={DEFAULT_WORDS[t.default_subscription].long}>
                  {DEFAULT_WORDS[t.default_subscription].short}
                </td>
                <td class="small" title={VISIBILITY_WORDS[t.visibility].long}>
                  {VISIBILITY_WORDS[t.visibility].short}
                </td>
                <AgoCell at={t.created_at} />
                {edit && (
                  <td class="right nowrap">
                    <button class="btn ghost sm" onClick={() => setEditing(t.id)} aria-label={`Edit ${t.name}`}>
                      Edit
                    </button>{' '}
                    <button class="btn ghost sm bad" onClick={() => remove.run(t)} aria-label={`Delete ${t.name}`}>
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
