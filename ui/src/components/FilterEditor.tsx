// The rule builder of a rule-based segment: rows of field / operator / value (contact fields, the
// team's properties, topic subscription, engagement) joined by all/any, with groups one level
// deep; a JSON view for any tree; the live count beside it and the server's 422 next to the rule
// it names. The server decides what is valid (filter-model.ts only shapes the input).
import { useEffect, useState } from 'preact/hooks';
import { get, plainMessage } from '../api';
import { val } from '../form-value';
import { allPages, type Topic } from '../audience';
import {
  BASE_FIELDS,
  ENGAGEMENTS,
  errorPath,
  fieldType,
  fromFilter,
  newGroup,
  newRow,
  NO_VALUE,
  opWord,
  OPS_BY_TYPE,
  pathWithin,
  rowErrorText,
  toFilter,
  type Group,
  type PropertyDef,
  type Row,
  type Rule,
} from '../filter-model';
import { useLoad } from '../hooks';
import { PreviewPanel, usePreview } from './FilterPreview';
import { Alert, Loading } from './ui';

interface Ctx {
  props: PropertyDef[];
  topics: Topic[];
  error?: { path: string; message: string };
}

export function FilterEditor({
  initial,
  onChange,
}: {
  initial?: unknown;
  onChange: (filter: Rule | undefined, problem?: string) => void;
}) {
  const refs = useLoad(async () => {
    const [props, topics] = await Promise.all([
      get<{ data: PropertyDef[] }>('/contact-properties'),
      allPages<Topic>(get, '/topics'),
    ]);
    return { props: props.data, topics };
  }, []);
  if (refs.error) return <Alert>{refs.error}</Alert>;
  if (!refs.data) return <Loading />;
  return <Editor initial={initial} onChange={onChange} props={refs.data.props} topics={refs.data.topics} />;
}

function Editor({
  initial,
  onChange,
  props,
  topics,
}: {
  initial?: unknown;
  onChange: (filter: Rule | undefined, problem?: string) => void;
  props: PropertyDef[];
  topics: Topic[];
}) {
  const fromInitial = initial === undefined ? newGroup('and') : fromFilter(initial);
  const [group, setGroup] = useState<Group>(fromInitial ?? newGroup('and'));
  const [json, setJson] = useState<string | undefined>(fromInitial ? undefined : JSON.stringify(initial, null, 2));
  const [serverError, setServerError] = useState<string>();
  const [note, setNote] = useState<string>();

  let filter: Rule | undefined;
  let jsonError: string | undefined;
  if (json === undefined) filter = toFilter(group, props);
  else {
    try {
      filter = JSON.parse(json) as Rule;
    } catch (e) {
      jsonError = `Not valid JSON: ${(e as Error).message}`;
    }
  }
  const { preview, busy } = usePreview(jsonError ? undefined : filter, setServerError);
  const key = JSON.stringify(filter ?? null);
  useEffect(() => {
    onChange(jsonError ? undefined : filter, jsonError ?? (serverError && plainMessage(serverError)));
  }, [key, jsonError, serverError]);

  const path = serverError ? errorPath(serverError) : undefined;
  const error = path && serverError ? { path, message: serverError } : undefined;
  const placed =
    json === undefined && error !== undefined && rowPaths(group, 'filter').some((p) => pathWithin(error.path, p));
  const toJson = () => {
    setJson(JSON.stringify(filter ?? { and: [] }, null, 2));
    setNote(undefined);
  };
  const toBuilder = () => {
    const g = jsonError ? undefined : fromFilter(filter);
    if (!g) {
      setNote('This rule is more than the builder shows (nesting, "not" or segment rules): keep editing it as JSON.');
      return;
    }
    setGroup(g);
    setJson(undefined);
    setNote(undefined);
  };
  return (
    <div class="filter-editor">
      <div class="filter-main">
        {json === undefined ? (
          <GroupEditor group={group} path="filter" label="" ctx={{ props, topics, error }} onChange={setGroup} />
        ) : (
          <label class="field">
            Rule as JSON <span class="hint">(README, "Filter segments")</span>
            <textarea
              class="mono"
              rows={12}
              value={json}
              spellcheck={false}
              onInput={(e) => setJson((e.currentTarget as HTMLTextAreaElement).value)}
            />
          </label>
        )}
        {(jsonError || (serverError && !placed)) && <Alert>{jsonError ?? plainMessage(serverError!)}</Alert>}
        {note && <Alert kind="info">{note}</Alert>}
        <p>
          <button type="button" class="btn ghost sm" onClick={json === undefined ? toJson : toBuilder}>
            {json === undefined ? 'Edit as JSON' : 'Use the rule builder'}
          </button>
        </p>
      </div>
      <PreviewPanel
        preview={preview}
        busy={busy}
        empty={filter === undefined && !jsonError}
        invalid={Boolean(jsonError || serverError)}
      />
    </div>
  );
}

/** The paths of every row of a group, as the server names them (`filter.and[1].or[0]`). */
function rowPaths(g: Group, at: string): string[] {
  return g.items.flatMap((x, i) =>
    x.kind === 'row' ? [`${at}.${g.join}[${i}]`] : rowPaths(x, `${at}.${g.join}[${i}]`),
  );
}

function GroupEditor({
  group,
  path,
  label,
  ctx,
  onChange,
  onRemove,
}: {
  group: Group;
  path: string;
  label: string;
  ctx: Ctx;
  onChange: (g: Group) => void;
  onRemove?: () => void;
}) {
  const nested = onRemove !== undefined;
  const set = (i: number, item: Row | Group) =>
    onChange({ ...group, items: group.items.map((x, j) => (j === i ? item : x)) });
  const remove = (i: number) => {
    const items = group.items.filter((_, j) => j !== i);
    if (nested && items.length === 0) onRemove!();
    else onChange({ ...group, items });
  };
  const name = nested ? `Group ${label}` : 'Rules';
  return (
    <fieldset class={nested ? 'rule-group nested' : 'rule-group'}>
      <legend class="rule-join">
        {nested ? 'Any contact matching ' : 'Contacts matching '}
        <select
          aria-label={`${name}: match`}
          value={group.join}
          onChange={(e) => onChange({ ...group, join: (e.currentTarget as HTMLSelectElement).value as Group['join'] })}
        >
          <option value="and">all</option>
          <option value="or">any</option>
        </select>
        {' of these rules'}
      </legend>
      {group.items.map((item, i) => {
        const at = `${path}.${group.join}[${i}]`;
        const l = label ? `${label}.${i + 1}` : String(i + 1);
        return item.kind === 'row' ? (
          <RowEditor
            key={item.key}
            row={item}
            path={at}
            label={l}
            ctx={ctx}
            onChange={(r) => set(i, r)}
            onRemove={() => remove(i)}
          />
        ) : (
          <GroupEditor
            key={item.key}
            group={item}
            path={at}
            label={l}
            ctx={ctx}
            onChange={(g) => set(i, g)}
            onRemove={() => remove(i)}
          />
        );
      })}
      <div class="rule-actions">
        <button type="button" class="btn sm" onClick={() => onChange({ ...group, items: [...group.items, newRow()] })}>
          {nested ? `Add a rule to group ${label}` : 'Add a rule'}
        </button>
        {!nested && (
          <button
            type="button"
            class="btn sm"
            onClick={() =>
              onChange({
                ...group,
                items: [...group.items, newGroup(group.join === 'and' ? 'or' : 'and', [newRow(), newRow()])],
              })
            }
          >
            Add a group
          </button>
        )}
        {nested && (
          <button type="button" class="btn ghost sm bad" onClick={onRemove}>
            Remove group {label}
          </button>
        )}
      </div>
    </fieldset>
  );
}

const FIELD_OPTS = (props: PropertyDef[]) => (
  <>
    <optgroup label="Contact">
      {BASE_FIELDS.map(([f, l]) => (
        <option key={f} value={f}>
          {l}
        </option>
      ))}
    </optgroup>
    {props.length > 0 && (
      <optgroup label="Properties">
        {props.map((p) => (
          <option key={p.key} value={`properties.${p.key}`}>
            {p.key}
          </option>
        ))}
      </optgroup>
    )}
    <optgroup label="Other">
      <option value=":topic">Topic subscription</option>
      <option value=":engagement">Engagement</option>
    </optgroup>
  </>
);

function RowEditor({
  row,
  path,
  label,
  ctx,
  onChange,
  onRemove,
}: {
  row: Row;
  path: string;
  label: string;
  ctx: Ctx;
  onChange: (r: Row) => void;
  onRemove: () => void;
}) {
  const n = `Rule ${label}`;
  const type = fieldType(row.field, ctx.props);
  const pick = (v: string) => {
    if (v === ':topic') return onChange({ ...row, type: 'topic', topic: row.topic || ctx.topics[0]?.id || '' });
    if (v === ':engagement') return onChange({ ...row, type: 'engagement' });
    const t = fieldType(v, ctx.props);
    const ops = OPS_BY_TYPE[t];
    const keep = row.type === 'field' && fieldType(row.field, ctx.props) === t;
    onChange({
      ...row,
      type: 'field',
      field: v,
      op: ops.includes(row.op) ? row.op : ops[0],
      value: keep ? row.value : t === 'boolean' ? 'true' : '',
    });
  };
  const err =
    ctx.error && pathWithin(ctx.error.path, path) ? rowErrorText(ctx.error.message, ctx.error.path, path) : undefined;
  return (
    <div class={err ? 'rule-row has-error' : 'rule-row'} data-testid="rule-row">
      <select
        aria-label={`${n}: field`}
        value={row.type === 'field' ? row.field : `:${row.type}`}
        onChange={(e) => pick(val(e))}
      >
        {FIELD_OPTS(ctx.props)}
      </select>
      {row.type === 'field' && (
        <>
          <select aria-label={`${n}: operator`} value={row.op} onChange={(e) => onChange({ ...row, op: val(e) })}>
            {OPS_BY_TYPE[type].map((o) => (
              <option key={o} value={o}>
                {opWord(o, type)}
              </option>
            ))}
          </select>
          {NO_VALUE.has(row.op) ? null : type === 'boolean' ? (
            <select aria-label={`${n}: value`} value={row.value} onChange={(e) => onChange({ ...row, value: val(e) })}>
              <option value="true">yes</option>
              <option value="false">no</option>
            </select>
          ) : type === 'date' ? (
            <input
              aria-label={`${n}: value`}
              type="date"
              value={row.value}
              onInput={(e) => onChange({ ...row, value: val(e) })}
            />
          ) : (
            <input
              aria-label={`${n}: value`}
              class="grow"
              value={row.value}
              inputMode={type === 'number' ? 'decimal' : undefined}
              placeholder={row.op === 'in' ? 'a, b, c' : type === 'number' ? '10' : ''}
              onInput={(e) => onChange({ ...row, value: val(e) })}
            />
          )}
        </>
      )}
      {row.type === 'topic' && (
        <>
          <select
            aria-label={`${n}: subscribed`}
            value={String(row.subscribed)}
            onChange={(e) => onChange({ ...row, subscribed: val(e) === 'true' })}
          >
            <option value="true">is subscribed to</option>
            <option value="false">is not subscribed to</option>
          </select>
          <select aria-label={`${n}: topic`} value={row.topic} onChange={(e) => onChange({ ...row, topic: val(e) })}>
            {ctx.topics.length === 0 && <option value="">(no topics yet)</option>}
            {ctx.topics.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </>
      )}
      {row.type === 'engagement' && (
        <>
          <select
            aria-label={`${n}: never`}
            value={String(row.never)}
            onChange={(e) => onChange({ ...row, never: val(e) === 'true' })}
          >
            <option value="false">has</option>
            <option value="true">has not</option>
          </select>
          <select
            aria-label={`${n}: event`}
            value={row.engagement}
            onChange={(e) => onChange({ ...row, engagement: val(e) })}
          >
            {ENGAGEMENTS.map((x) => (
              <option key={x} value={x}>
                {x}
              </option>
            ))}
          </select>
          <label class="field-inline">
            in the last{' '}
            <input
              aria-label={`${n}: days`}
              value={row.withinDays}
              size={4}
              inputMode="numeric"
              placeholder="any"
              onInput={(e) => onChange({ ...row, withinDays: val(e) })}
            />{' '}
            days
          </label>
        </>
      )}
      <button type="button" class="btn ghost sm" onClick={onRemove} aria-label={`Remove rule ${label}`}>
        ✕
      </button>
      {err && (
        <p class="rule-error" role="alert">
          {err}
        </p>
      )}
    </div>
  );
}
