// The hosted preference page (pure: no I/O): plain server-rendered HTML that works without
// JavaScript, inline styles only (the route's CSP allows nothing else), readable on a phone. Every
// button is a form POSTing back to the same signed URL with an `action` field (and a `topic`).
import type { PreferenceView } from './unsubscribe.js';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]);

const STYLE = `body{margin:0;background:#f6f6f7;color:#1c1c1e;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:32rem;margin:0 auto;padding:1.5rem 1rem}
h1{font-size:1.4rem;margin:0 0 .25rem}
p{margin:.5rem 0}
.muted{color:#5c5c66;font-size:.95rem}
.notice{background:#e8f5e9;border:1px solid #a5d6a7;border-radius:8px;padding:.75rem 1rem;margin:1rem 0}
.card{background:#fff;border:1px solid #e2e2e6;border-radius:10px;padding:1rem;margin:1rem 0}
.topic{display:flex;gap:.75rem;align-items:center;justify-content:space-between;padding:.6rem 0;border-top:1px solid #eee}
.topic:first-of-type{border-top:0}
.topic div{min-width:0;overflow-wrap:anywhere}
form{margin:0}
button{font:inherit;border-radius:8px;border:1px solid #c7c7cf;background:#fff;padding:.5rem .9rem;min-height:44px;cursor:pointer}
button.primary{background:#1c1c1e;color:#fff;border-color:#1c1c1e}
.addr{overflow-wrap:anywhere}`;

function form(action: string, fields: Record<string, string>, label: string, primary = false): string {
  const hidden = Object.entries(fields)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  return `<form method="post" action="${esc(action)}">${hidden}<button type="submit"${primary ? ' class="primary"' : ''}>${esc(label)}</button></form>`;
}

/** The page for `view`, its forms posting to `postUrl` (the signed URL's path); `notice` after an action. */
export function preferencePage(view: PreferenceView, postUrl: string, notice?: string): string {
  const topics = view.topics
    .map((t) => {
      const on = t.subscription === 'opt_in';
      const label = on ? 'Unsubscribe' : 'Subscribe';
      const current = view.emailTopicId === t.id ? ' <span class="muted">(this email)</span>' : '';
      return (
        `<div class="topic"><div><strong>${esc(t.name)}</strong>${current}<br><span class="muted">${on ? 'Subscribed' : 'Not subscribed'}${t.description ? ` · ${esc(t.description)}` : ''}</span></div>` +
        `${form(postUrl, { action: on ? 'leave_topic' : 'join_topic', topic: t.id }, label)}</div>`
      );
    })
    .join('');
  const all = view.unsubscribed
    ? `<p>You are unsubscribed from all mail from ${esc(view.sender)}.</p>${form(postUrl, { action: 'resubscribe' }, 'Resubscribe', true)}`
    : `<p>Stop receiving every newsletter and update from ${esc(view.sender)}.</p>${form(postUrl, { action: 'leave_all' }, 'Unsubscribe from everything', true)}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="robots" content="noindex"><title>Email preferences · ${esc(view.sender)}</title><style>${STYLE}</style></head>
<body><main>
<h1>Email preferences</h1>
<p class="muted">Mail from ${esc(view.sender)} to <span class="addr">${esc(view.address)}</span></p>
${notice ? `<div class="notice" role="status">${esc(notice)}</div>` : ''}
${view.topics.length ? `<div class="card">${topics}</div>` : ''}
<div class="card">${all}</div>
</main></body></html>`;
}

/** The page for a link that names nothing (404). */
export function invalidLinkPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>Link not valid</title><style>${STYLE}</style></head>
<body><main><h1>This link is not valid</h1><p class="muted">Use the unsubscribe link of a recent email, or contact its sender.</p></main></body></html>`;
}
