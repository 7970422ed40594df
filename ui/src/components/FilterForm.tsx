// A list page's filter bar: a change of a <select> applies at once, Enter or the button applies the
// text fields; the URL's query holds the filters (setQuery), so a filtered list can be linked to.
import type { ComponentChildren } from 'preact';
import { setQuery } from '../router';

export function FilterForm(props: { label: string; keys: readonly string[]; children: ComponentChildren }) {
  return (
    <form
      class="filters"
      aria-label={props.label}
      onChange={(e) => {
        if ((e.target as HTMLElement).tagName === 'SELECT') (e.currentTarget as HTMLFormElement).requestSubmit();
      }}
      onSubmit={(e) => {
        e.preventDefault();
        const d = Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<string, string>;
        setQuery(Object.fromEntries(props.keys.map((k) => [k, d[k] || undefined])));
      }}
    >
      {props.children}
    </form>
  );
}
