// A broadcast composed from a template: the template's own variables ({{{KEY}}}, {{{KEY|fallback}}})
// are filled once with the values the author gives (else the tag's fallback, else the variable's
// fallback_value), HTML-escaped in HTML, as the server's renderer fills them on a send. Everything
// else is kept as written, contact tags ({{{contact.first_name|there}}}, {{{FIRST_NAME}}}) and
// {{{RESEND_UNSUBSCRIBE_URL}}} included: the broadcast personalizes those per recipient.
export interface TemplateVariable {
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
}

const TAG = /\{\{\{\s*([A-Za-z0-9_]{1,50})\s*(?:\|([^}]*))?\}\}\}/g;
const RESERVED = new Set(['FIRST_NAME', 'LAST_NAME', 'EMAIL', 'UNSUBSCRIBE_URL', 'RESEND_UNSUBSCRIBE_URL']);
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** The body with the template's variables filled; `missing` gets the keys left as written. */
export function fillVariables(
  body: string,
  vars: TemplateVariable[],
  values: Record<string, string>,
  html: boolean,
  missing?: Set<string>,
): string {
  const declared = new Map(vars.map((v) => [v.key, v]));
  return body.replace(TAG, (raw, key: string, tagFallback: string | undefined) => {
    if (RESERVED.has(key)) return raw;
    const given = values[key];
    const fb = declared.get(key)?.fallback_value;
    const value =
      given !== undefined && given !== ''
        ? given
        : tagFallback !== undefined
          ? tagFallback.trim()
          : fb !== null && fb !== undefined
            ? String(fb)
            : undefined;
    if (value === undefined) {
      missing?.add(key);
      return raw;
    }
    return html ? value.replace(/[&<>"']/g, (c) => ESC[c]) : value;
  });
}

/** A visual editor's document with the variables filled in each of its texts (html fields escaped). */
export function fillDocument<T>(
  doc: T,
  vars: TemplateVariable[],
  values: Record<string, string>,
  missing?: Set<string>,
): T {
  const walk = (v: unknown, key: string): unknown => {
    if (typeof v === 'string')
      return key === 'id' || key === 'type' ? v : fillVariables(v, vars, values, key === 'html', missing);
    if (Array.isArray(v)) return v.map((x) => walk(x, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k)]));
    return v;
  };
  return walk(doc, '') as T;
}
