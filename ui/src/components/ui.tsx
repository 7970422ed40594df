// Small building blocks: status badge, empty state, copy button, alert, page header, key/value list,
// tabs, a paged list table and its relative-time cell.
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ago, fmtDate, label, tone } from '../format';

export function Badge({ status, text }: { status: string; text?: string }) {
  return <span class={`badge ${tone(status)}`}>{text ?? label(status)}</span>;
}

export function Empty({
  title,
  children,
  action,
}: {
  title: string;
  children?: ComponentChildren;
  action?: ComponentChildren;
}) {
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
  return (
    <button type="button" class={`btn ghost${small ? ' sm' : ''}`} onClick={copy} aria-live="polite">
      {done ? 'Copied' : l}
    </button>
  );
}

export function Alert({
  kind = 'bad',
  children,
}: {
  kind?: 'bad' | 'ok' | 'info' | 'warn';
  children: ComponentChildren;
}) {
  return (
    <div class={`alert ${kind}`} role={kind === 'bad' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

export function PageHead({
  title,
  children,
  sub,
}: {
  title: string;
  children?: ComponentChildren;
  sub?: ComponentChildren;
}) {
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

export function KV({ items, class: c }: { items: [string, ComponentChildren][]; class?: string }) {
  return (
    <dl class={c ? `kv ${c}` : 'kv'}>
      {items.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v ?? '—'}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * A failed request: the server's message and a Retry button. Pages show it instead of (never
 * beside) their empty state or "Loading…". A 404 gets no Retry: asking again cannot find it.
 */
export function ErrorRetry({ error, retry, status }: { error: string; retry: () => void; status?: number }) {
  return (
    <div class="alert bad error-retry" role="alert" data-testid="load-error">
      <span>{error}</span>
      {status !== 404 && (
        <button type="button" class="btn sm" onClick={retry}>
          Retry
        </button>
      )}
    </div>
  );
}

export function Loading() {
  return (
    <p class="muted loading" aria-busy="true">
      Loading…
    </p>
  );
}

export function Code({ children }: { children: string }) {
  return (
    <pre class="code" tabIndex={0}>
      {children}
    </pre>
  );
}

/**
 * A list table fed by usePaged: the header cells, the rows, then a scroll sentinel and a
 * "Load more" button for keyboards.
 */
export function PagedTable({
  list,
  head,
  children,
  testId,
  stack,
}: {
  list: { sentinel: (el: HTMLDivElement | null) => void; hasMore: boolean; busy: boolean; more: () => void };
  head: ComponentChildren;
  children: ComponentChildren;
  testId?: string;
  /** On a phone each row becomes a card (cells with class "aside" on the right) instead of scrolling sideways. */
  stack?: boolean;
}) {
  return (
    <div class="table-wrap">
      <table class={stack ? 'list stack' : 'list'} data-testid={testId}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
      <div ref={list.sentinel} />
      {list.hasMore && (
        <button class="btn wide" onClick={list.more} disabled={list.busy}>
          {list.busy ? 'Loading…' : 'Load more'}
        </button>
      )}
    </div>
  );
}

/** A table cell with a relative time ("5 minutes ago"); the exact date on hover. */
export function AgoCell({ at, class: c }: { at: string; class?: string }) {
  return (
    <td title={fmtDate(at)} class={c ? `nowrap ${c}` : 'nowrap'}>
      {ago(at)}
    </td>
  );
}

/** A tab list (arrow keys move between tabs) and the panel of the selected tab. */
export function Tabs<T extends string>({
  tabs,
  tab,
  onChange,
  label: l,
  children,
}: {
  tabs: readonly T[];
  tab: T;
  onChange: (t: T) => void;
  label: string;
  children: ComponentChildren;
}) {
  const onKey = (ev: KeyboardEvent) => {
    if (ev.key !== 'ArrowRight' && ev.key !== 'ArrowLeft') return;
    const i = tabs.indexOf(tab);
    const next = tabs[(i + (ev.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length];
    onChange(next);
    (document.getElementById(`tab-${next}`) as HTMLElement | null)?.focus();
  };
  return (
    <>
      <div class="tabs" role="tablist" aria-label={l} onKeyDown={onKey}>
        {tabs.map((t) => (
          <button
            key={t}
            id={`tab-${t}`}
            role="tab"
            type="button"
            aria-selected={tab === t}
            aria-controls="tabpanel"
            tabIndex={tab === t ? 0 : -1}
            onClick={() => onChange(t)}
          >
            {t}
          </button>
        ))}
      </div>
      <section id="tabpanel" role="tabpanel" aria-labelledby={`tab-${tab}`} class="card">
        {children}
      </section>
    </>
  );
}
