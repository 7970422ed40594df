// "Personalize": a tag for a contact property ({{{contact.first_name|there}}}) put where the caret
// was in the editor's last focused field. The properties are the team's (GET /contact-properties)
// plus the built-in first name, last name and email.
import { useRef, useState } from 'preact/hooks';
import { get } from '../../api';
import { useLoad } from '../../hooks';
import { hasSpot, insertAtCaret } from './caret';

const BUILT_IN: [string, string][] = [
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['email', 'Email'],
];

export const tagFor = (key: string, fallback: string) => {
  const fb = fallback.replace(/[{}|]/g, '').trim();
  return `{{{contact.${key}${fb && key !== 'email' ? `|${fb}` : ''}}}}`;
};

export function Personalize() {
  const props = useLoad(() => get<{ data: { key: string }[] }>('/contact-properties'), []);
  const [fallback, setFallback] = useState('there');
  const [note, setNote] = useState<string>();
  const menu = useRef<HTMLDetailsElement>(null);
  const keys: [string, string][] = [
    ...BUILT_IN,
    ...(props.data?.data ?? []).map((p): [string, string] => [p.key, p.key]),
  ];
  const pick = (key: string) => {
    const ok = insertAtCaret(tagFor(key, fallback));
    setNote(ok ? undefined : 'Click into a text field or a text block first, then choose the property.');
    if (ok && menu.current) menu.current.open = false;
  };
  return (
    <details class="menu personalize" ref={menu} data-no-caret>
      <summary class="btn sm">Personalize</summary>
      <div class="menu-panel" role="group" aria-label="Personalization tags">
        <div class="field">
          <label for="pz-fallback">Fallback (when the contact has no value)</label>
          <input id="pz-fallback" value={fallback} onInput={(e) => setFallback(e.currentTarget.value)} />
        </div>
        <ul class="plain">
          {keys.map(([k, l]) => (
            <li key={k}>
              <button type="button" class="btn ghost sm" onClick={() => pick(k)} title={tagFor(k, fallback)}>
                {l}
              </button>
            </li>
          ))}
        </ul>
        {!hasSpot() && <p class="hint">Goes where the caret was in the last field you edited.</p>}
        {note && <p class="hint">{note}</p>}
        {props.error && <p class="hint">{props.error}</p>}
      </div>
    </details>
  );
}
