// The thread list of a folder, a label or a search: sender, subject, labels with their colours,
// unread in bold with a dot, count, attachment and draft marks; more on scroll or "Load more" to
// the end. Also the Drafts list (the inbox's drafts with their snippets).
import type { ComponentChildren } from 'preact';
import { ago, fmtDate } from '../../format';
import { LabelChips } from './ThreadActions';
import { who, type DraftItem, type Thread } from './types';

/** A paperclip (an SVG: no emoji font is needed). */
export function Clip({ label }: { label?: string }) {
  return (
    <svg
      class="ib-clip"
      viewBox="0 0 16 16"
      width="14"
      height="14"
      role={label ? 'img' : undefined}
      aria-label={label}
      aria-hidden={label ? undefined : 'true'}
    >
      <path
        d="M10.5 4.5 5.6 9.4a1.4 1.4 0 0 0 2 2l5-5a2.8 2.8 0 0 0-4-4l-5 5a4.2 4.2 0 0 0 6 6l4.4-4.4"
        fill="none"
        stroke="currentColor"
        stroke-width="1.4"
        stroke-linecap="round"
      />
    </svg>
  );
}

interface Paged<T> {
  rows: T[];
  hasMore: boolean;
  busy: boolean;
  loaded: boolean;
  more: () => void;
  sentinel: (el: HTMLDivElement | null) => void;
}

function ListFrame<T>({ list, empty, children }: { list: Paged<T>; empty: string; children: ComponentChildren }) {
  return (
    <div class="ib-list-wrap">
      {!list.loaded ? (
        <p class="muted loading" aria-busy="true">
          Loading…
        </p>
      ) : list.rows.length === 0 ? (
        <p class="muted ib-empty" role="status">
          {empty}
        </p>
      ) : (
        children
      )}
      <div ref={list.sentinel} />
      {list.hasMore && (
        <button type="button" class="btn wide" onClick={list.more} disabled={list.busy}>
          {list.busy ? 'Loading…' : 'Load more'}
        </button>
      )}
    </div>
  );
}

export function ThreadList({
  list,
  selected,
  open,
  empty,
}: {
  list: Paged<Thread>;
  selected: string;
  open: (id: string) => void;
  empty: string;
}) {
  return (
    <ListFrame list={list} empty={empty}>
      <ul class="ib-threads" data-testid="threads" aria-label="Conversations">
        {list.rows.map((t) => (
          <li
            key={t.id}
            class={`ib-thread${t.read ? '' : ' unread'}${t.id === selected ? ' selected' : ''}`}
            aria-current={t.id === selected ? 'true' : undefined}
            data-thread={t.id}
          >
            <button type="button" class="ib-thread-btn" onClick={() => open(t.id)}>
              <span class="ib-thread-top">
                <span class="ib-sender">
                  {!t.read && <span class="ib-unread-dot" aria-label="unread" />}
                  {who(t.from)}
                  {t.email_count > 1 && <span class="muted"> ({t.email_count})</span>}
                </span>
                <time class="small muted nowrap" dateTime={t.received_at} title={fmtDate(t.received_at)}>
                  {ago(t.received_at)}
                </time>
              </span>
              <span class="ib-subject">{t.subject || '(no subject)'}</span>
              <span class="ib-thread-foot">
                <LabelChips labels={t.labels} />
                {t.has_attachment && <Clip label="has attachments" />}
                {t.has_draft && <span class="badge warn">draft</span>}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </ListFrame>
  );
}

export function DraftList({ list, open }: { list: Paged<DraftItem>; open: (d: DraftItem) => void }) {
  return (
    <ListFrame list={list} empty="No drafts.">
      <ul class="ib-threads" data-testid="drafts" aria-label="Drafts">
        {list.rows.map((d) => (
          <li key={d.id} class="ib-thread">
            <button type="button" class="ib-thread-btn" onClick={() => open(d)}>
              <span class="ib-thread-top">
                <span class="ib-sender">
                  {d.type === 'reply' ? 'Reply' : d.to?.length ? `To ${d.to.join(', ')}` : 'No recipient yet'}
                </span>
                <time class="small muted nowrap" dateTime={d.updated_at}>
                  {ago(d.updated_at)}
                </time>
              </span>
              <span class="ib-subject">{d.subject || '(no subject)'}</span>
              <span class="small muted ib-snippet">{d.snippet ?? ''}</span>
            </button>
          </li>
        ))}
      </ul>
    </ListFrame>
  );
}
