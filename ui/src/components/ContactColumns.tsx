// Which contact properties the Contacts table shows as columns (remembered on this browser).
import { saveColumns } from '../contact-query';
import type { Property } from './ContactFilters';

export function ContactColumns(props: {
  properties: Property[];
  chosen: string[];
  onChange: (keys: string[]) => void;
}) {
  if (!props.properties.length) return null;
  const toggle = (key: string, on: boolean) => {
    const next = on ? [...props.chosen, key] : props.chosen.filter((k) => k !== key);
    saveColumns(next);
    props.onChange(next);
  };
  return (
    <details class="columns-pick">
      <summary class="btn sm">Columns{props.chosen.length ? ` (${props.chosen.length})` : ''}</summary>
      <fieldset class="card">
        <legend class="small muted">Property columns</legend>
        {props.properties.map((p) => (
          <label key={p.key} class="check">
            <input
              type="checkbox"
              checked={props.chosen.includes(p.key)}
              onChange={(e) => toggle(p.key, e.currentTarget.checked)}
            />
            {p.key}
          </label>
        ))}
      </fieldset>
    </details>
  );
}
