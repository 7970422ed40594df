// The rich text of the editor's text and footer blocks, sanitised to exactly the inline subset the
// contract allows: <p> <br> <strong> <b> <em> <i> <u> <s> <ul> <ol> <li> and <a href> with an
// http(s), mailto or {{{tag}}} link. Every other tag is dropped with its text kept (script, style
// and the like with their content too), every attribute but a checked href is dropped, tags are
// balanced. The output is rebuilt from scratch (allowed tag names, escaped text), never copied
// from the input, so no parser quirk of the input can survive into it.
import { escapeText, TAG } from '../render/escape.js';

// No "<" inside a tag, even quoted: each scan stops at the next "<", so the work stays linear in
// the input whatever it holds (a "<a " repeated 30,000 times is one pass).
const START = /<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:[^<>"']|"[^<"]*"|'[^<']*')*)>/y;
const HREF = /(?:^|\s)href\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/i;
const ALLOWED = new Set(['p', 'br', 'strong', 'b', 'em', 'i', 'u', 's', 'a', 'ul', 'ol', 'li']);
const VOID = new Set(['br']);
/** Dropped with everything inside them: their text is not meant to be read. */
const OPAQUE = new Set([
  'script',
  'style',
  'head',
  'title',
  'template',
  'noscript',
  'textarea',
  'iframe',
  'object',
  'svg',
  'math',
  'select',
  'xmp',
  'noembed',
  'noframes',
  'plaintext',
]);

/**
 * A link a document may use: http(s)://, mailto: or one starting with a personalization tag;
 * no whitespace, quotes, angle brackets or control characters outside the tags. undefined: refused.
 */
export function linkOf(raw: string): string | undefined {
  const v = raw.trim();
  if (!v || v.length > 2048) return undefined;
  if (!/^(?:https?:\/\/[^/\s]|mailto:|\{\{\{)/i.test(v)) return undefined;
  if (/[\s"'<>`\\\u0000-\u001f\u007f]/.test(v.replace(TAG, ''))) return undefined;
  return v;
}

const decodeAttr = (v: string) =>
  v
    .replace(/&quot;/g, '"')
    .replace(/&#0*39;|&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

export interface Sanitised {
  html: string;
  /** what was dropped, e.g. "<script>", "<img>", "href javascript:..." (for the editor's warnings) */
  dropped: string[];
}

export function sanitiseRichText(input: string): Sanitised {
  const dropped = new Set<string>();
  const open: string[] = [];
  let out = '';
  let opaque: string | undefined; // inside <script> etc.: everything up to its end tag is dropped
  let i = 0;
  while (i < input.length) {
    const lt = input.indexOf('<', i);
    const textEnd = lt < 0 ? input.length : lt;
    if (textEnd > i) {
      if (!opaque) out += escapeText(input.slice(i, textEnd));
      i = textEnd;
      continue;
    }
    if (input.startsWith('<!--', i)) {
      const end = input.indexOf('-->', i + 4);
      i = end < 0 ? input.length : end + 3;
      continue;
    }
    START.lastIndex = i;
    const m = START.exec(input);
    if (!m) {
      if (input[i + 1] === '!' || input[i + 1] === '?') {
        // <!DOCTYPE>, <![CDATA[ ...]]>, <?xml ?>: declarations, never text
        const end = input.indexOf('>', i);
        i = end < 0 ? input.length : end + 1;
        dropped.add('<!...>');
        continue;
      }
      if (!opaque) out += '&lt;';
      i++;
      continue;
    }
    i += m[0].length;
    const closing = m[1] === '/';
    const name = m[2].toLowerCase();
    if (opaque) {
      if (closing && name === opaque) opaque = undefined;
      continue;
    }
    if (OPAQUE.has(name)) {
      dropped.add(`<${name}>`);
      if (!closing && !m[3].trim().endsWith('/')) opaque = name;
      continue;
    }
    if (!ALLOWED.has(name)) {
      if (!closing) dropped.add(`<${name}>`);
      continue;
    }
    if (closing) {
      const at = open.lastIndexOf(name);
      if (at < 0) continue;
      while (open.length > at) out += `</${open.pop()}>`;
      continue;
    }
    if (VOID.has(name)) {
      out += `<${name}>`;
      continue;
    }
    if (name === 'a') {
      const h = HREF.exec(m[3]);
      const raw = h ? decodeAttr(h[1] ?? h[2] ?? h[3] ?? '') : '';
      const href = raw ? linkOf(raw) : undefined;
      if (!href) {
        if (raw) dropped.add(`href ${raw.slice(0, 40)}`);
        continue; // the link's text stays, unlinked
      }
      out += `<a href="${escapeText(href)}">`;
      open.push('a');
      continue;
    }
    out += `<${name}>`;
    open.push(name);
  }
  while (open.length) out += `</${open.pop()}>`;
  return { html: out, dropped: [...dropped] };
}
