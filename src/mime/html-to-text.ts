// HTML → plain text for the text/plain alternative generated when a send gives only `html`.
// A single pass over tags (no DOM, no dependency): blocks become line breaks, links "text (url)",
// lists "- item" / "1. item"; <head>, <style>, <script> are dropped. Never wraps lines.

const ENTITIES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
  copy: '©',
  reg: '®',
  trade: '™',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  sbquo: '‚',
  ldquo: '“',
  rdquo: '”',
  bdquo: '„',
  bull: '•',
  middot: '·',
  euro: '€',
  pound: '£',
  yen: '¥',
  cent: '¢',
  sect: '§',
  para: '¶',
  deg: '°',
  plusmn: '±',
  times: '×',
  divide: '÷',
  laquo: '«',
  raquo: '»',
  iexcl: '¡',
  iquest: '¿',
  shy: '',
  zwnj: '',
  zwj: '',
  lrm: '',
  rlm: '',
  rarr: '→',
  larr: '←',
  uarr: '↑',
  darr: '↓',
  check: '✓',
  hearts: '♥',
  star: '☆',
  frac12: '½',
};

/** Decodes named and numeric character references; unknown names are left as written. */
export function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z][a-z0-9]{1,31}));?/gi, (all, dec, hex, name) => {
    if (name) return ENTITIES[name] ?? ENTITIES[name.toLowerCase()] ?? all;
    const cp = dec ? parseInt(dec, 10) : parseInt(hex, 16);
    if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
    return String.fromCodePoint(cp);
  });
}

// Blank line around these; a single line break around BLOCK.
const PARAGRAPH = new Set([
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'blockquote',
  'pre',
  'hr',
  'ul',
  'ol',
  'dl',
  'figure',
  'address',
]);
const BLOCK = new Set([
  'div',
  'tr',
  'li',
  'dt',
  'dd',
  'section',
  'article',
  'header',
  'footer',
  'main',
  'nav',
  'aside',
  'center',
  'form',
  'fieldset',
  'tbody',
  'thead',
  'tfoot',
  'caption',
  'figcaption',
  'details',
  'summary',
]);
const DROPPED = /<(head|style|script|title|template|noscript|svg|object)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const TOKEN =
  /<!--[\s\S]*?(?:-->|$)|<!\[CDATA\[[\s\S]*?\]\]>|<![^>]*>|<\?[^>]*>|<(\/?)([a-z][a-z0-9:-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>|[^<]+|</gi;

const attr = (attrs: string, name: string): string | undefined => {
  const m = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(attrs);
  return m ? decodeEntities(m[1] ?? m[2] ?? m[3] ?? '').trim() : undefined;
};

/**
 * The text written so far, as pieces: appending never copies what is already there (a string grown
 * by `+=` and read by a regex or `charCodeAt` is flattened, a copy of the whole output per token:
 * 290 KB of garbage for a 3 KB newsletter). Holds its length and its last character.
 */
class Output {
  private parts: string[] = [];
  length = 0;
  append(s: string): void {
    if (!s) return;
    this.parts.push(s);
    this.length += s.length;
  }
  /** The last character, or '' when empty. */
  last(): string {
    const p = this.parts[this.parts.length - 1];
    return p ? p[p.length - 1] : '';
  }
  /** Drops trailing spaces and tabs. */
  trimEndSpaces(): void {
    while (this.parts.length) {
      const p = this.parts[this.parts.length - 1];
      let j = p.length;
      while (j > 0 && (p[j - 1] === ' ' || p[j - 1] === '\t')) j--;
      if (j === p.length) return;
      this.length -= p.length - j;
      if (j > 0) {
        this.parts[this.parts.length - 1] = p.slice(0, j);
        return;
      }
      this.parts.pop();
    }
  }
  /** What was written from offset `start` on (as `string.slice(start)` would give). */
  from(start: number): string {
    const n = this.length - start;
    if (n <= 0) return '';
    const tail: string[] = [];
    for (let i = this.parts.length - 1, k = 0; i >= 0 && k < n; i--) {
      tail.push(this.parts[i]);
      k += this.parts[i].length;
    }
    const s = tail.reverse().join('');
    return s.slice(s.length - n);
  }
  toString(): string {
    return this.parts.join('');
  }
}

/** Converts an HTML document or fragment to readable plain text. */
export function htmlToText(html: string): string {
  const out = new Output();
  let pre = 0;
  const lists: { ordered: boolean; n: number }[] = [];
  const links: { href?: string; start: number }[] = [];
  // Breaks are pending until text arrives, so runs of closing/opening blocks collapse to one.
  let pendingBreak = 0;
  const brk = (n: number) => {
    if (out.length) pendingBreak = Math.max(pendingBreak, n);
  };
  const emit = (s: string, indent = '') => {
    if (!s) return;
    if (pendingBreak) {
      if (!pre) s = s.replace(/^ +/, '');
      s = indent + s;
      out.trimEndSpaces();
      out.append('\n'.repeat(pendingBreak));
      pendingBreak = 0;
    }
    out.append(s);
  };
  const endsInSpaceOrBreak = () => out.last() === ' ' || out.last() === '\n';

  const source = html.replace(DROPPED, '');
  // exec on the one TOKEN rather than matchAll, which copies the regex (and starts an iterator) per
  // call: ~a quarter of this function's time for a short body. Every alternative of TOKEN consumes
  // at least one character, so the loop always advances.
  TOKEN.lastIndex = 0;
  for (let m = TOKEN.exec(source); m !== null; m = TOKEN.exec(source)) {
    const [tok, closing, rawTag, attrs = ''] = m;
    if (!rawTag) {
      if (tok.startsWith('<!') || tok.startsWith('<?')) continue;
      let text = decodeEntities(tok);
      if (!pre) {
        text = text.replace(/[\s\u00a0]+/g, ' ');
        if (endsInSpaceOrBreak() || pendingBreak || !out.length) text = text.replace(/^ /, '');
      }
      emit(text);
      continue;
    }
    const tag = rawTag.toLowerCase();
    if (tag === 'br') {
      emit('\n');
      pendingBreak = 0;
      continue;
    }
    if (tag === 'pre') pre += closing ? -1 : 1;
    if (tag === 'ul' || tag === 'ol') {
      if (closing) lists.pop();
      else lists.push({ ordered: tag === 'ol', n: 0 });
      brk(lists.length > (closing ? 0 : 1) ? 1 : 2); // a nested list hugs its parent item
      continue;
    }
    if (tag === 'li' && !closing) {
      brk(1);
      const list = lists[lists.length - 1];
      const bullet = list?.ordered ? `${++list.n}. ` : '- ';
      emit(bullet, '  '.repeat(Math.max(0, lists.length - 1)));
      continue;
    }
    if (tag === 'td' || tag === 'th') {
      if (!closing && out.length && !/\s/.test(out.last()) && !pendingBreak) emit(' ');
      continue;
    }
    if (tag === 'img' && !closing) {
      const alt = attr(attrs, 'alt');
      if (alt) emit((endsInSpaceOrBreak() || !out.length ? '' : ' ') + alt);
      continue;
    }
    if (tag === 'a') {
      if (!closing) links.push({ href: attr(attrs, 'href'), start: out.length });
      else {
        const link = links.pop();
        const href = link?.href;
        const text = out.from(link?.start ?? out.length).trim();
        const shownHref = href?.replace(/^mailto:/i, '');
        if (href && shownHref && !/^(#|javascript:|data:|cid:)/i.test(href) && text !== shownHref && text !== href) {
          emit(text ? ` (${href})` : href);
        }
      }
      continue;
    }
    if (PARAGRAPH.has(tag)) brk(2);
    else if (BLOCK.has(tag)) brk(1);
  }
  return out
    .toString()
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
