// Small building blocks: status badge, empty state, copy button, alert, page header, key/value list.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { label, tone } from '../format';

export function Badge({ status, text }: { status: string; text?: string }) {
  return <span class={`badge ${tone(status)}`}>{text ?? label(status)}</span>;
}

export function Empty({ title, children, action }: { title: string; children?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty" role="status">
      <h2>{title}</h2>
      {children && <div class="empty-body">{children}</div>}
      {action && <div class="empty-action">{action}</div>}
    </div>
  );
}

export function Copy({ text, label: l = 'Copy', small }: { text: string; label?: string; small?: boolean }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      const ta = document.createElement('textarea');
      ta.value = text;
      document.body.appendChild(ta);
      ta.select();
      document.execCommand('copy');
      ta.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 1500);
  };
  return <button type="button" class={`btn ghost${small ? ' sm' : ''}`} onClick={copy} aria-live="polite">{done ? 'Copied' : l}</button>;
}

export function Alert({ kind = 'bad', children }: { kind?: 'bad' | 'ok' | 'info' | 'warn'; children: ComponentChildren }) {
  return <div class={`alert ${kind}`} role={kind === 'bad' ? 'alert' : 'status'}>{children}</div>;
}

export function PageHead({ title, children, sub }: { title: string; children?: ComponentChildren; sub?: ComponentChildren }) {
  return (
    <header class="page-head">
      <div>
        <h1>{title}</h1>
        {sub && <p class="muted">{sub}</p>}
      </div>
      {children && <div class="actions">{children}</div>}
    </header>
  );
}

export function KV({ items }: { items: [string, ComponentChildren][] }) {
  return (
    <dl class="kv">
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

export function Loading() {
  return <p class="muted loading" aria-busy="true">Loading…</p>;
}

export function Code({ children }: { children: string }) {
  return <pre class="code" tabIndex={0}>{children}</pre>;
}
