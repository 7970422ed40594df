// The fields of each automation step type, in plain words: event names and templates and segments
// picked from lists, delays as number + unit, a rule editor for conditions and wait filters, and
// values that are either fixed text or taken from the event or the contact. Each edit changes the
// step's config in place, then calls `changed` (the builder re-renders and recomputes the graph).
import { useState } from 'preact/hooks';
import { get } from '../api';
import {
  COND_OPS,
  joinDuration,
  newCondRow,
  NO_VALUE_OPS,
  NUMBER_OPS,
  splitDuration,
  TEXT_OPS,
  UNITS,
  type CondRow,
  type Group,
  type Node,
  type Refs,
} from '../automation-model';
import { val } from '../form-value';
import { useLoad } from '../hooks';
import { GroupEditor } from './RuleEditor';

export interface EditorProps {
  node: Node;
  refs: Refs;
  changed: () => void;
  edit: boolean;
}

const OTHER = '__other__';

/** An event name from the list (definitions and recent events), or another one typed in. */
export function EventPicker({
  label,
  value,
  names,
  onChange,
  edit,
}: {
  label: string;
  value: string;
  names: string[];
  onChange: (v: string) => void;
  edit: boolean;
}) {
  const [other, setOther] = useState(value !== '' && !names.includes(value));
  const typing = other || names.length === 0;
  return (
    <span class="picker">
      {names.length > 0 && (
        <select
          aria-label={label}
          value={typing ? OTHER : value}
          disabled={!edit}
          onChange={(e) => {
            const v = val(e);
            setOther(v === OTHER);
            onChange(v === OTHER ? '' : v);
          }}
        >
          {value === '' && !typing && <option value="">Choose an event…</option>}
          {names.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
          <option value={OTHER}>Another event name…</option>
        </select>
      )}
      {typing && (
        <input
          aria-label={names.length ? `${label} name` : label}
          value={value}
          disabled={!edit}
          placeholder="user.created"
          onInput={(e) => onChange(val(e))}
        />
      )}
    </span>
  );
}

/** A number and a unit ("3" + "days" → "3 days"). */
export function DurationInput({
  label,
  value,
  onChange,
  edit,
}: {
  label: string;
  value: string;
  onChange: (v: string) => void;
  edit: boolean;
}) {
  const { n, unit } = splitDuration(value);
  return (
    <span class="duration">
      <input
        aria-label={`${label}: amount`}
        inputMode="decimal"
        size={4}
        value={n}
        disabled={!edit}
        onInput={(e) => onChange(joinDuration(val(e), unit))}
      />
      <select
        aria-label={`${label}: unit`}
        value={unit}
        disabled={!edit}
        onChange={(e) => onChange(joinDuration(n, val(e)))}
      >
        {unit === 'second' && <option value="second">seconds</option>}
        {UNITS.map((u) => (
          <option key={u} value={u}>
            {u}s
          </option>
        ))}
      </select>
    </span>
  );
}

type Source = 'text' | 'event' | 'contact';
/** A value that is fixed text, or `{var: "event.x"}` / `{var: "contact.x"}` resolved when the step runs. */
function ValueInput({
  label,
  value,
  onChange,
  edit,
}: {
  label: string;
  value: unknown;
  onChange: (v: unknown) => void;
  edit: boolean;
}) {
  const isVar = typeof value === 'object' && value !== null && 'var' in value;
  const v = isVar ? String((value as { var: string }).var) : value === undefined || value === null ? '' : String(value);
  const source: Source = isVar ? (v.startsWith('contact.') ? 'contact' : 'event') : 'text';
  const rest = isVar ? v.replace(/^(event|contact)\./, '') : v;
  const set = (s: Source, r: string) => onChange(s === 'text' ? r : { var: `${s}.${r}` });
  return (
    <span class="value-input">
      <select
        aria-label={`${label}: from`}
        value={source}
        disabled={!edit}
        onChange={(e) => set(val(e) as Source, source === 'text' ? '' : rest)}
      >
        <option value="text">Text</option>
        <option value="event">Event field</option>
        <option value="contact">Contact field</option>
      </select>
      <input
        aria-label={label}
        value={rest}
        disabled={!edit}
        placeholder={source === 'text' ? '' : source === 'event' ? 'plan' : 'first_name'}
        onInput={(e) => set(source, val(e))}
      />
    </span>
  );
}

export function StepFields(p: EditorProps) {
  const { node: n, refs, changed, edit } = p;
  const c = n.config;
  const setC = (k: string, v: unknown) => {
    if (v === undefined) delete c[k];
    else c[k] = v;
    changed();
  };
  const field = (l: string, child: preact.ComponentChildren) => (
    <div class="step-field">
      <span class="step-label">{l}</span>
      {child}
    </div>
  );
  switch (n.type) {
    case 'trigger':
      return field(
        'When this event is sent',
        <EventPicker
          label={`${n.key}: event`}
          value={c.event_name ?? ''}
          names={refs.eventNames}
          edit={edit}
          onChange={(v) => setC('event_name', v)}
        />,
      );
    case 'delay':
      return field(
        'Wait for',
        <DurationInput
          label={`${n.key}: duration`}
          value={c.duration ?? ''}
          edit={edit}
          onChange={(v) => setC('duration', v)}
        />,
      );
    case 'send_email':
      return <SendEmailFields {...p} />;
    case 'wait_for_event':
      return (
        <>
          {field(
            'Until this event is sent',
            <EventPicker
              label={`${n.key}: event`}
              value={c.event_name ?? ''}
              names={refs.eventNames}
              edit={edit}
              onChange={(v) => setC('event_name', v)}
            />,
          )}
          {field(
            'Give up after',
            <span class="row">
              <label class="field-inline">
                <input
                  type="checkbox"
                  checked={Boolean(c.timeout)}
                  disabled={!edit}
                  aria-label={`${n.key}: give up after a while`}
                  onChange={(e) => {
                    if (
                      !(e.currentTarget as HTMLInputElement).checked &&
                      n.no.length &&
                      !confirm('Remove the steps of the "Timed out" branch too?')
                    )
                      return;
                    if (!(e.currentTarget as HTMLInputElement).checked) n.no = [];
                    setC('timeout', (e.currentTarget as HTMLInputElement).checked ? '3 days' : undefined);
                  }}
                />{' '}
                a timeout
              </label>
              {c.timeout && (
                <DurationInput
                  label={`${n.key}: timeout`}
                  value={c.timeout}
                  edit={edit}
                  onChange={(v) => setC('timeout', v)}
                />
              )}
            </span>,
          )}
          {field(
            'Only an event that matches',
            <span>
              <label class="field-inline">
                <input
                  type="checkbox"
                  checked={Boolean(n.filter)}
                  disabled={!edit}
                  aria-label={`${n.key}: filter the event`}
                  onChange={(e) => {
                    n.filter = (e.currentTarget as HTMLInputElement).checked
                      ? { kind: 'group', join: 'and', items: [newCondRow('event.')] }
                      : undefined;
                    changed();
                  }}
                />{' '}
                filter
              </label>
              {n.filter && (
                <GroupEditor group={n.filter} label={`${n.key} filter`} refs={refs} changed={changed} edit={edit} />
              )}
            </span>,
          )}
        </>
      );
    case 'condition':
      return n.cond ? (
        <GroupEditor group={n.cond} label={`${n.key}`} refs={refs} changed={changed} edit={edit} />
      ) : null;
    case 'add_to_segment':
      return field(
        'Segment',
        <select
          aria-label={`${n.key}: segment`}
          value={c.segment_id ?? ''}
          disabled={!edit}
          onChange={(e) => setC('segment_id', val(e))}
        >
          <option value="">{refs.segments.length ? 'Choose a segment…' : 'No segments yet'}</option>
          {refs.segments.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>,
      );
    case 'contact_update':
      return <ContactUpdateFields {...p} />;
    case 'contact_delete':
      return <p class="hint">Deletes the contact the run is about.</p>;
  }
}

function SendEmailFields({ node: n, refs, changed, edit }: EditorProps) {
  const t = n.config.template ?? (n.config.template = { id: '', variables: {} });
  const vars: Record<string, unknown> = t.variables ?? (t.variables = {});
  const tpl = useLoad(
    () =>
      t.id
        ? get<{ variables: { key: string; fallback_value: unknown }[] }>(`/templates/${encodeURIComponent(t.id)}`)
        : Promise.resolve(undefined),
    [t.id],
  );
  const known = tpl.data?.variables ?? [];
  const keys = [...known.map((v) => v.key), ...Object.keys(vars).filter((k) => !known.some((v) => v.key === k))];
  const listed = refs.templates.some((x) => x.id === t.id || x.alias === t.id);
  return (
    <>
      <div class="step-field">
        <span class="step-label">Template</span>
        <select
          aria-label={`${n.key}: template`}
          value={t.id}
          disabled={!edit}
          onChange={(e) => {
            t.id = val(e);
            changed();
          }}
        >
          <option value="">
            {refs.templates.length ? 'Choose a published template…' : 'No published templates yet'}
          </option>
          {!listed && t.id && <option value={t.id}>{t.id}</option>}
          {refs.templates.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
      </div>
      {keys.map((k) => (
        <div class="step-field" key={k}>
          <span class="step-label mono">{k}</span>
          <ValueInput
            label={`${n.key}: ${k}`}
            value={vars[k]}
            edit={edit}
            onChange={(v) => {
              if (v === '') delete vars[k];
              else vars[k] = v;
              changed();
            }}
          />
        </div>
      ))}
      {keys.length > 0 && <p class="hint">Empty variables use the template's fallback.</p>}
    </>
  );
}

function ContactUpdateFields({ node: n, refs, changed, edit }: EditorProps) {
  const c = n.config;
  const props: Record<string, unknown> = c.properties ?? {};
  const setProp = (k: string, v: unknown) => {
    const next = { ...props };
    if (v === '' || v === undefined) delete next[k];
    else next[k] = v;
    if (Object.keys(next).length) c.properties = next;
    else delete c.properties;
    changed();
  };
  return (
    <>
      {(['first_name', 'last_name'] as const).map((f) => (
        <div class="step-field" key={f}>
          <span class="step-label">{f === 'first_name' ? 'First name' : 'Last name'}</span>
          <ValueInput
            label={`${n.key}: ${f.replace('_', ' ')}`}
            value={c[f]}
            edit={edit}
            onChange={(v) => {
              if (v === '') delete c[f];
              else c[f] = v;
              changed();
            }}
          />
        </div>
      ))}
      <div class="step-field">
        <span class="step-label">Subscription</span>
        <select
          aria-label={`${n.key}: subscription`}
          value={c.unsubscribed === undefined ? '' : String(c.unsubscribed)}
          disabled={!edit}
          onChange={(e) => {
            const v = val(e);
            if (v === '') delete c.unsubscribed;
            else c.unsubscribed = v === 'true';
            changed();
          }}
        >
          <option value="">Leave as it is</option>
          <option value="true">Unsubscribe from all mail</option>
          <option value="false">Resubscribe</option>
        </select>
      </div>
      {refs.properties.map((k) => (
        <div class="step-field" key={k}>
          <span class="step-label mono">{k}</span>
          <ValueInput label={`${n.key}: property ${k}`} value={props[k]} edit={edit} onChange={(v) => setProp(k, v)} />
        </div>
      ))}
    </>
  );
}
