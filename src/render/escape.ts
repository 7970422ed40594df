// Escaping for the HTML the document renderer writes (render/mjml-markup.ts) and the rich-text
// sanitiser (templates/rich-text.ts): personalization tags and entity references pass unchanged,
// so that the per-recipient renderer (personalize.ts) still finds and fills every tag.

/** A personalization tag as the renderer reads it (personalize.ts). */
export const TAG = /\{\{\{[^{}]*\}\}\}/g;
const ENTITY = /^&(?:#[0-9]{1,7}|#x[0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});/;

/** Text made safe for HTML: & < > " escaped, entity references and personalization tags kept as written. */
export function escapeText(s: string): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    if (c === '{' && s.startsWith('{{{', i)) {
      const m = /^\{\{\{[^{}]*\}\}\}/.exec(s.slice(i, i + 1024));
      if (m && !/[<>"]/.test(m[0])) {
        out += m[0];
        i += m[0].length;
        continue;
      }
    }
    if (c === '&') {
      const m = ENTITY.exec(s.slice(i, i + 40));
      out += m ? m[0] : '&amp;';
      i += m ? m[0].length : 1;
      continue;
    }
    out += c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : c;
    i++;
  }
  return out;
}
