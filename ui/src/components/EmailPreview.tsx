// An email's HTML in a sandboxed frame: no scripts, no same-origin access, a CSP in the srcdoc that
// blocks remote content (tracking pixels included) until the reader asks for it. Also its headers.
import { useState } from 'preact/hooks';

const REMOTE_IMG = /<img\b[^>]*\bsrc\s*=\s*["']?\s*(https?:)?\/\//gi;

export function EmailPreview({ html, title }: { html: string | null; title: string }) {
  const [remote, setRemote] = useState(false);
  if (!html) return <p class="muted">This email has no HTML part.</p>;
  const blocked = (html.match(REMOTE_IMG) ?? []).length;
  const csp = `default-src 'none'; style-src 'unsafe-inline'; font-src data:; img-src data: cid:${remote ? ' https: http:' : ''}`;
  const doc = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><base target="_blank"><meta name="referrer" content="no-referrer"><style>body{font-family:system-ui,sans-serif;margin:16px;color:#111;background:#fff}</style></head><body>${html}</body></html>`;
  return (
    <div class="preview">
      {blocked > 0 && (
        <div class="preview-bar" role="status">
          {remote ? (
            <span>Remote images are shown.</span>
          ) : (
            <span>
              {blocked} remote image{blocked > 1 ? 's' : ''} blocked (they could tell the sender you opened this).
            </span>
          )}
          <button type="button" class="btn sm" onClick={() => setRemote(!remote)}>
            {remote ? 'Block remote images' : 'Show remote images'}
          </button>
        </div>
      )}
      <iframe
        key={String(remote)}
        title={`Preview of ${title}`}
        sandbox="allow-popups allow-popups-to-escape-sandbox"
        srcdoc={doc}
        referrerpolicy="no-referrer"
      />
    </div>
  );
}

/** The header block of a raw message, unfolded, as name/value pairs. */
export function parseHeaders(raw: string): [string, string][] {
  const end = raw.search(/\r?\n\r?\n/);
  const block = (end < 0 ? raw : raw.slice(0, end)).replace(/\r?\n[ \t]+/g, ' ');
  return block
    .split(/\r?\n/)
    .filter(Boolean)
    .map((line) => {
      const i = line.indexOf(':');
      return i < 0 ? [line, ''] : [line.slice(0, i), line.slice(i + 1).trim()];
    });
}

/** Header name/value pairs as a table, in message order. */
export function HeadersTable({ headers }: { headers: [string, string][] }) {
  return (
    <div class="table-wrap">
      <table class="list headers">
        <tbody>
          {headers.map(([k, v], i) => (
            <tr key={i}>
              <th scope="row">{k}</th>
              <td class="mono wrap">{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
