// Inline rich text without a framework and without document.execCommand (deprecated, and each
// browser writes different markup): a contenteditable box whose toolbar edits the DOM through
// Range: bold, italic, a link, bulleted and numbered lists. It emits the subset the server keeps
// (<p>, <br>, <strong>, <em>, <a>, <ul>, <ol>, <li>); the server sanitises again.
import { useEffect, useRef, useState } from 'preact/hooks';

const BLOCKS = new Set(['P', 'UL', 'OL']);
const SAME: Record<string, string[]> = { strong: ['STRONG', 'B'], em: ['EM', 'I'] };

/** Top-level children become paragraphs or lists; stray text and <div>s (Enter in Chromium) become <p>. */
function normalise(root: HTMLElement): string {
  const sel = getSelection();
  const caret = sel?.anchorNode ? ([sel.anchorNode, sel.anchorOffset] as const) : null;
  for (const n of [...root.childNodes]) {
    if (n.nodeType === Node.TEXT_NODE) {
      if (!n.textContent?.trim()) continue;
      const p = document.createElement('p');
      n.replaceWith(p);
      p.appendChild(n);
    } else if (n instanceof HTMLElement && !BLOCKS.has(n.tagName)) {
      if (n.tagName === 'BR') {
        n.remove();
        continue;
      }
      const p = document.createElement('p');
      if (n.tagName === 'DIV') p.append(...n.childNodes);
      else p.appendChild(n.cloneNode(true));
      n.replaceWith(p);
    }
  }
  // A moved text node loses the caret to its old parent: put it back where the typing goes on.
  if (caret && caret[0].isConnected && root.contains(caret[0]) && sel?.anchorNode !== caret[0])
    sel?.collapse(caret[0], caret[1]);
  return root.innerHTML.replace(/&nbsp;/g, ' ');
}

/** The top-level paragraph or list of `root` holding `node`. */
function blockOf(root: HTMLElement, node: Node): HTMLElement | null {
  let n: Node | null = node;
  while (n && n.parentNode !== root) n = n.parentNode;
  return n instanceof HTMLElement ? n : null;
}

function ancestor(root: HTMLElement, node: Node, tags: string[]): HTMLElement | null {
  for (let n: Node | null = node; n && n !== root; n = n.parentNode)
    if (n instanceof HTMLElement && tags.includes(n.tagName)) return n;
  return null;
}

const unwrap = (el: HTMLElement) => el.replaceWith(...el.childNodes);

/** The paragraphs and list items the range touches (the units inline formatting is applied in). */
const units = (root: HTMLElement, r: Range) =>
  [...root.querySelectorAll<HTMLElement>('p, li')].filter((el) => r.intersectsNode(el) && !el.querySelector('p, li'));

function texts(root: HTMLElement, r: Range): Node[] {
  const w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const out: Node[] = [];
  while (w.nextNode())
    if (r.intersectsNode(w.currentNode) && w.currentNode.textContent?.trim()) out.push(w.currentNode);
  return out;
}

export function RichText({
  value,
  onChange,
  label,
  id,
}: {
  value: string;
  onChange: (html: string) => void;
  label: string;
  id: string;
}) {
  const box = useRef<HTMLDivElement>(null);
  const emitted = useRef<string | undefined>(undefined);
  const saved = useRef<Range | null>(null);
  const [linking, setLinking] = useState(false);
  const [href, setHref] = useState('https://');
  // A value from outside (a version loaded, a save's answer) replaces the content, never while one
  // types: renders of earlier keystrokes may still arrive with older values.
  useEffect(() => {
    if (box.current && value !== emitted.current && document.activeElement !== box.current) {
      box.current.innerHTML = value || '<p><br></p>';
      emitted.current = value;
    }
  }, [value]);
  const emit = () => {
    if (!box.current) return;
    const html = normalise(box.current);
    emitted.current = html;
    onChange(html);
  };
  /** The selection when it lies in the box (else the one saved when the link form opened). */
  const range = (): Range | null => {
    const sel = getSelection();
    const r = sel && sel.rangeCount ? sel.getRangeAt(0) : null;
    if (r && box.current?.contains(r.commonAncestorContainer)) return r;
    return saved.current;
  };
  const select = (r: Range) => {
    const sel = getSelection();
    sel?.removeAllRanges();
    sel?.addRange(r);
  };
  /** Wraps the selection in `tag` paragraph by paragraph, or unwraps it when all of it has the tag. */
  const wrap = (tag: string, attrs: Record<string, string> = {}) => {
    const root = box.current;
    const r = range();
    if (!root || !r || r.collapsed) return;
    const tags = SAME[tag] ?? [tag.toUpperCase()];
    const ts = texts(root, r);
    if (!attrs.href && ts.length > 0 && ts.every((t) => ancestor(root, t, tags))) {
      for (const t of ts) {
        const a = ancestor(root, t, tags);
        if (a) unwrap(a);
      }
      emit();
      return;
    }
    const done = document.createRange();
    let first = true;
    for (const u of units(root, r)) {
      const sub = document.createRange();
      sub.selectNodeContents(u);
      if (r.compareBoundaryPoints(Range.START_TO_START, sub) > 0) sub.setStart(r.startContainer, r.startOffset);
      if (r.compareBoundaryPoints(Range.END_TO_END, sub) < 0) sub.setEnd(r.endContainer, r.endOffset);
      if (sub.collapsed) continue;
      const frag = sub.extractContents();
      for (const t of tags) for (const el of [...frag.querySelectorAll<HTMLElement>(t)]) unwrap(el);
      const el = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      el.appendChild(frag);
      sub.insertNode(el);
      if (first) done.setStartBefore(el);
      done.setEndAfter(el);
      first = false;
    }
    if (!first) select(done);
    emit();
  };
  const list = (tag: 'UL' | 'OL') => {
    const root = box.current;
    const r = range();
    if (!root || !r) return;
    const block = blockOf(root, r.startContainer);
    if (!block) return;
    if (block.tagName === tag) {
      const ps = [...block.children].map((li) => {
        const p = document.createElement('p');
        p.append(...li.childNodes);
        return p;
      });
      block.replaceWith(...ps);
    } else if (block.tagName === 'UL' || block.tagName === 'OL') {
      const other = document.createElement(tag);
      other.append(...block.childNodes);
      block.replaceWith(other);
    } else {
      const l = document.createElement(tag);
      const li = document.createElement('li');
      li.append(...block.childNodes);
      l.appendChild(li);
      block.replaceWith(l);
    }
    emit();
  };
  const tool = (name: string, title: string, fn: () => void) => (
    <button
      type="button"
      class="btn sm"
      title={title}
      aria-label={title}
      onMouseDown={(e) => e.preventDefault() /* keep the selection in the box */}
      onClick={fn}
    >
      {name}
    </button>
  );
  return (
    <div class="rich">
      <div class="rich-tools" role="toolbar" aria-label={`${label} formatting`}>
        {tool('B', 'Bold', () => wrap('strong'))}
        {tool('I', 'Italic', () => wrap('em'))}
        {tool('Link', 'Link', () => {
          saved.current = range()?.cloneRange() ?? null;
          setLinking(!linking);
        })}
        {tool('• List', 'Bulleted list', () => list('UL'))}
        {tool('1. List', 'Numbered list', () => list('OL'))}
      </div>
      {linking && (
        <div class="row rich-link" data-no-caret>
          <input
            aria-label="Link address"
            value={href}
            onInput={(e) => setHref(e.currentTarget.value)}
            placeholder="https://example.com or {{{contact.url}}}"
          />
          <button
            type="button"
            class="btn sm"
            onClick={() => {
              if (saved.current) select(saved.current);
              const root = box.current;
              const a = root && saved.current && ancestor(root, saved.current.commonAncestorContainer, ['A']);
              if (a) {
                a.setAttribute('href', href.trim());
                emit();
              } else wrap('a', { href: href.trim() });
              setLinking(false);
            }}
          >
            Apply link
          </button>
          <button
            type="button"
            class="btn ghost sm"
            onClick={() => {
              const root = box.current;
              const a = root && saved.current && ancestor(root, saved.current.commonAncestorContainer, ['A']);
              if (a) unwrap(a);
              emit();
              setLinking(false);
            }}
          >
            Remove link
          </button>
        </div>
      )}
      <div
        ref={box}
        id={id}
        class="rich-box"
        contentEditable
        role="textbox"
        aria-multiline="true"
        aria-label={label}
        onInput={emit}
        onPaste={(e) => {
          e.preventDefault();
          const text = e.clipboardData?.getData('text/plain') ?? '';
          const r = range();
          if (!r || !text) return;
          r.deleteContents();
          const node = document.createTextNode(text);
          r.insertNode(node);
          r.setStartAfter(node);
          r.collapse(true);
          select(r);
          emit();
        }}
      />
    </div>
  );
}
