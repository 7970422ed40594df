// Where a personalization tag goes: the last field of the editor that had the focus (an input, a
// textarea or a rich text box) and its caret or selection there, remembered when the focus leaves
// it for the Personalize menu (any text field of the page: the subject too). Inserting fires an `input` event, so the field's own handler saves it.
type Spot =
  | { kind: 'field'; el: HTMLInputElement | HTMLTextAreaElement; start: number; end: number }
  | { kind: 'rich'; el: HTMLElement; range: Range };

let spot: Spot | null = null;

const isField = (t: EventTarget | null): t is HTMLInputElement | HTMLTextAreaElement =>
  (t instanceof HTMLInputElement && ['text', 'url', ''].includes(t.type)) || t instanceof HTMLTextAreaElement;

/** Records the caret of a text field or a rich text box losing the focus (not the menu's own fields). */
export function remember(e: FocusEvent): void {
  const t = e.target as HTMLElement | null;
  if (!t || t.closest('[data-no-caret]')) return;
  if (isField(t))
    spot = { kind: 'field', el: t, start: t.selectionStart ?? t.value.length, end: t.selectionEnd ?? t.value.length };
  else if (t.isContentEditable) {
    const sel = getSelection();
    const range = sel && sel.rangeCount > 0 ? sel.getRangeAt(0) : null;
    if (range && t.contains(range.startContainer)) spot = { kind: 'rich', el: t, range: range.cloneRange() };
    else {
      const r = document.createRange();
      r.selectNodeContents(t);
      r.collapse(false);
      spot = { kind: 'rich', el: t, range: r };
    }
  }
}

export const hasSpot = () => !!spot && spot.el.isConnected;

/** Puts `text` where the caret was (replacing a selection); false when no field has had the focus. */
export function insertAtCaret(text: string): boolean {
  if (!spot || !spot.el.isConnected) return false;
  if (spot.kind === 'field') {
    const { el, start, end } = spot;
    el.focus();
    el.setRangeText(text, start, end, 'end');
    spot = { kind: 'field', el, start: start + text.length, end: start + text.length };
    el.dispatchEvent(new Event('input', { bubbles: true }));
    return true;
  }
  const { el, range } = spot;
  el.focus();
  const node = document.createTextNode(text);
  range.deleteContents();
  // A caret directly in the box (an empty one) gets a paragraph around the text.
  if (range.startContainer === el) {
    const p = document.createElement('p');
    p.appendChild(node);
    range.insertNode(p);
  } else range.insertNode(node);
  const after = document.createRange();
  after.setStartAfter(node);
  after.collapse(true);
  const sel = getSelection();
  sel?.removeAllRanges();
  sel?.addRange(after);
  spot = { kind: 'rich', el, range: after.cloneRange() };
  el.dispatchEvent(new Event('input', { bubbles: true }));
  return true;
}
