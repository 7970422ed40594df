// The Inboxes page's keyboard shortcuts: one document listener, never while typing (inputs,
// text areas, selects, editable content) or with a modifier held, and the help list `?` opens.
import { useEffect, useRef } from 'preact/hooks';

export const SHORTCUTS: [string, string][] = [
  ['j / k', 'Next / previous conversation'],
  ['o', 'Open the selected conversation'],
  ['Esc', 'Back to the list'],
  ['r', 'Reply'],
  ['f', 'Forward'],
  ['c', 'Compose a new email'],
  ['e', 'Archive'],
  ['#', 'Move to trash'],
  ['!', 'Mark as spam'],
  ['u', 'Mark as unread'],
  ['l', 'Labels'],
  ['/', 'Search'],
  ['?', 'This list'],
];

// Fields that take text (a checkbox or a button does not: a shortcut pressed there still works).
const TYPING =
  'input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]):not([type=color]), textarea, select, [contenteditable=""], [contenteditable="true"]';

export function useShortcuts(keys: Record<string, () => void>): void {
  const ref = useRef(keys);
  ref.current = keys;
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
      const t = e.target as HTMLElement | null;
      if (t?.closest?.(TYPING)) return;
      if (e.key !== 'Escape' && document.querySelector('dialog[open]')) return; // the help list is on top
      const fn = ref.current[e.key];
      if (!fn) return;
      e.preventDefault();
      fn();
    };
    document.addEventListener('keydown', on);
    return () => document.removeEventListener('keydown', on);
  }, []);
}

export function ShortcutHelp({ open, close }: { open: boolean; close: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);
  return (
    <dialog ref={ref} class="ib-help" aria-labelledby="ib-help-title" onClose={close}>
      <h2 id="ib-help-title">Keyboard shortcuts</h2>
      <table class="list">
        <tbody>
          {SHORTCUTS.map(([k, what]) => (
            <tr key={k}>
              <th scope="row">
                <kbd>{k}</kbd>
              </th>
              <td>{what}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p class="hint">Shortcuts never fire while you type in a field.</p>
      <button type="button" class="btn wide" onClick={close}>
        Close
      </button>
    </dialog>
  );
}
