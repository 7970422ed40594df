// The Contacts page's filter bar: search by part of an address or name, and filters by segment,
// topic (subscribed or not), subscription and one property. The URL query holds them (FilterForm).
import { FilterForm } from './FilterForm';
import { CONTACT_FILTERS, PROPERTY_OPS, type ContactFilters as Filters } from '../contact-query';

export interface Named {
  id: string;
  name: string;
}
export interface Property {
  key: string;
  type: 'string' | 'number';
}

export function ContactFilters(props: { f: Filters; segments: Named[]; topics: Named[]; properties: Property[] }) {
  const { f } = props;
  const valueless = f.prop_op === 'exists' || f.prop_op === 'is_empty';
  return (
    <FilterForm label="Find contacts" keys={CONTACT_FILTERS}>
      <label class="inline small grow">
        Search{' '}
        <input
          name="search"
          type="search"
          class="grow"
          maxLength={200}
          defaultValue={f.search}
          placeholder="Part of an address or name"
        />
      </label>
      <label class="inline small">
        Segment{' '}
        <select name="segment" value={f.segment} aria-label="Segment">
          <option value="">Any segment</option>
          {props.segments.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
      <label class="inline small">
        Subscription{' '}
        <select name="status" value={f.status} aria-label="Subscription">
          <option value="">Subscribed or not</option>
          <option value="subscribed">Subscribed</option>
          <option value="unsubscribed">Unsubscribed</option>
        </select>
      </label>
      {props.topics.length > 0 && (
        <label class="inline small">
          Topic{' '}
          <select name="topic" value={f.topic} aria-label="Topic">
            <option value="">Any topic</option>
            {props.topics.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>{' '}
          <select name="topic_state" value={f.topic_state} aria-label="Topic subscription">
            <option value="">subscribed</option>
            <option value="unsubscribed">not subscribed</option>
          </select>
        </label>
      )}
      {props.properties.length > 0 && (
        <label class="inline small">
          Property{' '}
          <select name="prop" value={f.prop} aria-label="Property">
            <option value="">Any property</option>
            {props.properties.map((p) => (
              <option key={p.key} value={p.key}>
                {p.key}
              </option>
            ))}
          </select>{' '}
          <select name="prop_op" value={f.prop_op} aria-label="Property comparison">
            {PROPERTY_OPS.map(([op, label]) => (
              <option key={op} value={op === 'eq' ? '' : op}>
                {label}
              </option>
            ))}
          </select>{' '}
          {!valueless && (
            <input
              name="prop_value"
              aria-label="Property value"
              size={10}
              maxLength={1000}
              defaultValue={f.prop_value}
            />
          )}
        </label>
      )}
      <button class="btn">Find</button>
    </FilterForm>
  );
}
