// The rule editor of automation conditions and wait filters: rules on the event or the contact
// joined by all/any, with groups inside groups. Edits change the group in place, then call
// `changed` (the builder re-renders). The step editors around it are StepEditors.tsx's.
import {
  COND_OPS,
  newCondRow,
  NO_VALUE_OPS,
  NUMBER_OPS,
  TEXT_OPS,
  type CondRow,
  type Group,
  type Refs,
} from '../automation-model';
import { val } from '../form-value';

const CONTACT_FIELDS = ['email', 'first_name', 'last_name', 'unsubscribed', 'created_at'];

/** Rules joined by all/any, with groups inside groups (the API allows six levels). */
export function GroupEditor({
  group,
  label,
  refs,
  changed,
  edit,
  onRemove,
}: {
  group: Group;
  label: string;
  refs: Refs;
  changed: () => void;
  edit: boolean;
  onRemove?: () => void;
}) {
  const set = (i: number, x: CondRow | Group) => {
    group.items[i] = x;
    changed();
  };
  const drop = (i: number) => {
    group.items.splice(i, 1);
    if (!group.items.length && onRemove) onRemove();
    else changed();
  };
  return (
    <fieldset class={onRemove ? 'rule-group nested' : 'rule-group'}>
      <legend class="rule-join">
        {'Match '}
        <select
          aria-label={`${label}: match`}
          value={group.join}
          disabled={!edit}
          onChange={(e) => {
            group.join = val(e) as Group['join'];
            changed();
          }}
        >
          <option value="and">all</option>
          <option value="or">any</option>
        </select>
        {' of these rules'}
      </legend>
      {group.items.map((x, i) =>
        x.kind === 'row' ? (
          <CondRowEditor
            key={i}
            row={x}
            label={`${label} rule ${i + 1}`}
            refs={refs}
            edit={edit}
            onChange={(r) => set(i, r)}
            onRemove={() => drop(i)}
          />
        ) : (
          <GroupEditor
            key={i}
            group={x}
            label={`${label} group ${i + 1}`}
            refs={refs}
            changed={changed}
            edit={edit}
            onRemove={() => drop(i)}
          />
        ),
      )}
      {edit && (
        <div class="rule-actions">
          <button
            type="button"
            class="btn sm"
            onClick={() => {
              group.items.push(newCondRow());
              changed();
            }}
          >
            Add a rule
          </button>
          <button
            type="button"
            class="btn sm"
            onClick={() => {
              group.items.push({
                kind: 'group',
                join: group.join === 'and' ? 'or' : 'and',
                items: [newCondRow(), newCondRow()],
              });
              changed();
            }}
          >
            Add a group
          </button>
          {onRemove && (
            <button type="button" class="btn ghost sm bad" onClick={onRemove}>
              Remove group
            </button>
          )}
        </div>
      )}
    </fieldset>
  );
}

function CondRowEditor({
  row,
  label,
  refs,
  edit,
  onChange,
  onRemove,
}: {
  row: CondRow;
  label: string;
  refs: Refs;
  edit: boolean;
  onChange: (r: CondRow) => void;
  onRemove: () => void;
}) {
  const scope = row.field.startsWith('contact.') ? 'contact' : 'event';
  const key = row.field.replace(/^(event|contact)\./, '');
  const contactKeys = [...CONTACT_FIELDS, ...refs.properties];
  return (
    <div class="rule-row" data-testid="cond-row">
      <select
        aria-label={`${label}: of`}
        value={scope}
        disabled={!edit}
        onChange={(e) => onChange({ ...row, field: `${val(e)}.${val(e) === 'contact' ? 'email' : ''}` })}
      >
        <option value="event">Event field</option>
        <option value="contact">Contact field</option>
      </select>
      {scope === 'event' ? (
        <input
          aria-label={`${label}: field`}
          value={key}
          placeholder="plan"
          size={10}
          disabled={!edit}
          onInput={(e) => onChange({ ...row, field: `event.${val(e)}` })}
        />
      ) : (
        <select
          aria-label={`${label}: field`}
          value={key}
          disabled={!edit}
          onChange={(e) => onChange({ ...row, field: `contact.${val(e)}` })}
        >
          {!contactKeys.includes(key) && <option value={key}>{key}</option>}
          {contactKeys.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      )}
      <select
        aria-label={`${label}: operator`}
        value={row.op}
        disabled={!edit}
        onChange={(e) => onChange({ ...row, op: val(e) })}
      >
        {COND_OPS.map(([o, w]) => (
          <option key={o} value={o}>
            {w}
          </option>
        ))}
      </select>
      {!NO_VALUE_OPS.has(row.op) && (row.op === 'eq' || row.op === 'neq') && (
        <select
          aria-label={`${label}: value type`}
          value={row.vtype}
          disabled={!edit}
          onChange={(e) =>
            onChange({ ...row, vtype: val(e) as CondRow['vtype'], value: val(e) === 'boolean' ? 'true' : row.value })
          }
        >
          <option value="text">text</option>
          <option value="number">number</option>
          <option value="boolean">yes/no</option>
        </select>
      )}
      {NO_VALUE_OPS.has(row.op) ? null : (row.op === 'eq' || row.op === 'neq') && row.vtype === 'boolean' ? (
        <select
          aria-label={`${label}: value`}
          value={row.value}
          disabled={!edit}
          onChange={(e) => onChange({ ...row, value: val(e) })}
        >
          <option value="true">yes</option>
          <option value="false">no</option>
        </select>
      ) : (
        <input
          aria-label={`${label}: value`}
          class="grow"
          value={row.value}
          disabled={!edit}
          inputMode={
            NUMBER_OPS.has(row.op) || (row.vtype === 'number' && !TEXT_OPS.has(row.op)) ? 'decimal' : undefined
          }
          onInput={(e) => onChange({ ...row, value: val(e) })}
        />
      )}
      {edit && (
        <button type="button" class="btn ghost sm" onClick={onRemove} aria-label={`Remove ${label}`}>
          ✕
        </button>
      )}
    </div>
  );
}
