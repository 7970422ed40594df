// One inbox, a page a support team can live in: the side (folders, labels, compose, agent), the
// thread list (a folder, a label or a ranked search) and the open conversation or composer. The
// place is in the URL (?folder, ?label, ?q, ?t thread, ?compose, ?draft, ?panel), so a reload
// returns to it. At phone width the list and the conversation are separate views. New mail shows
// by itself: the inbox is asked again every 15 s while the page is visible, and a new
// `last_received` reloads the list (or, when more than its first page is loaded, offers to).
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, get, patch, post, qs, type List } from '../../api';
import { Alert, ErrorRetry, Loading } from '../../components/ui';
import { Link } from '../../components/Link';
import { useLoad, usePaged } from '../../hooks';
import { setQuery } from '../../router';
import { AgentPanel } from './AgentPanel';
import { Composer, type ComposeMode } from './Composer';
import { Conversation } from './Conversation';
import { ShortcutHelp, useShortcuts } from './shortcuts';
import { Sidebar } from './Sidebar';
import type { Member } from './ThreadActions';
import { DraftList, ThreadList } from './ThreadList';
import {
  inboxPath,
  type DraftItem,
  type Folder,
  type Inbox,
  type Label,
  type Thread,
  type ThreadSummary,
} from './types';

const PAGE = 25;
const POLL_MS = 15_000;

export function Mailbox({ inbox: ref, query }: { inbox: string; query: URLSearchParams }) {
  const folder = query.get('folder') ?? 'inbox';
  const label = query.get('label') ?? '';
  const q = query.get('q') ?? '';
  const threadId = query.get('t') ?? '';
  const panel = query.get('panel') ?? '';
  const composeNew = query.get('compose') === 'new';
  const draftId = query.get('draft') ?? undefined;

  const inbox = useLoad(() => get<Inbox>(inboxPath(ref)), [ref]);
  const labels = useLoad(() => get<List<Label>>(inboxPath(ref, '/labels')), [ref]);
  const members = useLoad(
    () => get<{ members: Member[] }>('/dashboard-api/team').catch(() => ({ members: [] as Member[] })),
    [],
  );
  const listKey = `${ref}|${folder}|${label}|${q}`;
  const threads = usePaged<Thread>(
    (after) =>
      q
        ? inboxPath(ref, `/threads/search${qs({ query: q, limit: PAGE, after })}`)
        : inboxPath(
            ref,
            `/threads${qs({ folders: folder === 'all' || folder === 'drafts' ? undefined : folder, labels: label, limit: PAGE, after })}`,
          ),
    listKey,
  );
  const drafts = usePaged<DraftItem>(
    (after) => inboxPath(ref, `/drafts${qs({ limit: PAGE, after })}`),
    `${ref}|${folder}`,
  );
  const [summaryTick, setSummaryTick] = useState(0);
  const summary = useLoad(
    () => (threadId ? get<ThreadSummary>(inboxPath(ref, `/threads/${threadId}`)) : Promise.resolve(undefined)),
    [ref, threadId, summaryTick],
  );
  const [compose, setCompose] = useState<ComposeMode | null>(null);
  const [labelsOpen, setLabelsOpen] = useState(false);
  const [help, setHelp] = useState(false);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<string>();
  const searchRef = useRef<HTMLInputElement>(null);
  const s = summary.data && summary.data.id === threadId ? summary.data : undefined;

  // New mail: the list follows (a deep list is not cut back to its first page without asking).
  const [fresh, setFresh] = useState(false);
  const lastSeen = useRef<string | null | undefined>(undefined);
  const last = inbox.data?.last_received;
  useEffect(() => {
    if (!inbox.data) return;
    if (lastSeen.current !== undefined && last !== lastSeen.current) {
      if (threads.rows.length <= PAGE) threads.reload();
      else setFresh(true);
    }
    lastSeen.current = last;
  }, [last, inbox.data]);
  useEffect(() => {
    const id = window.setInterval(() => document.visibilityState === 'visible' && inbox.reload(), POLL_MS);
    return () => window.clearInterval(id);
  }, [ref]);

  // A new thread closes the composer and the labels menu.
  useEffect(() => {
    setCompose(null);
    setLabelsOpen(false);
  }, [threadId]);

  // Opening an unread thread reads it.
  useEffect(() => {
    if (!s || s.read) return;
    patch(inboxPath(ref, `/threads/${s.id}`), { read: true })
      .then(() => {
        threads.setRows((rows) => rows.map((t) => (t.id === s.id ? { ...t, read: true } : t)));
        inbox.reload();
      })
      .catch(() => undefined);
  }, [s?.id]);

  const open = (id: string) => setQuery({ t: id, compose: undefined, draft: undefined, panel: undefined });
  const back = () => setQuery({ t: undefined, compose: undefined, draft: undefined, panel: undefined });
  /** A folder or label chosen (the same one again: its list fetched afresh). */
  const choose = (f: string, l?: string) => {
    setFresh(false);
    setQuery({
      folder: f === 'inbox' ? undefined : f,
      label: l,
      q: undefined,
      t: undefined,
      compose: undefined,
      draft: undefined,
      panel: undefined,
    });
    threads.reload();
    drafts.reload();
    inbox.reload();
  };

  /** A change to the open thread: the list row and the summary follow; errors show above it. */
  const act = async (fn: () => Promise<unknown>, after?: () => void): Promise<boolean> => {
    setBusy(true);
    setActionError(undefined);
    try {
      await fn();
      after?.();
      setSummaryTick((n) => n + 1);
      inbox.reload();
      return true;
    } catch (e) {
      setActionError((e as Error).message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  const index = threads.rows.findIndex((t) => t.id === threadId);
  const step = (d: 1 | -1) => {
    const rows = threads.rows;
    if (!rows.length) return;
    const i = index < 0 ? (d === 1 ? 0 : rows.length - 1) : index + d;
    if (i >= rows.length && threads.hasMore) threads.more();
    if (i >= 0 && i < rows.length) open(rows[i].id);
  };
  const move = (f: Folder) => {
    if (!s) return;
    const id = s.id;
    const next = threads.rows[index + 1] ?? threads.rows[index - 1];
    act(
      () => patch(inboxPath(ref, `/threads/${id}`), { folder: f }),
      () => {
        const stays = q || folder === 'all' || folder === f;
        if (stays) threads.setRows((rows) => rows.map((t) => (t.id === id ? { ...t, folder: f } : t)));
        else {
          threads.setRows((rows) => rows.filter((t) => t.id !== id));
          if (next && next.id !== id) open(next.id);
          else back();
        }
      },
    );
  };
  const unread = () => {
    if (!s) return;
    const id = s.id;
    act(
      () => patch(inboxPath(ref, `/threads/${id}`), { read: false }),
      () => {
        threads.setRows((rows) => rows.map((t) => (t.id === id ? { ...t, read: false } : t)));
        back();
      },
    );
  };
  const toggleLabel = (l: Label, on: boolean): Promise<boolean> => {
    if (!s) return Promise.resolve(false);
    const id = s.id;
    return act(async () => {
      const r = on
        ? await post<List<Label>>(inboxPath(ref, `/threads/${id}/labels`), { labels: [l.id] })
        : await del<List<Label>>(inboxPath(ref, `/threads/${id}/labels/${l.id}`));
      threads.setRows((rows) => rows.map((t) => (t.id === id ? { ...t, labels: r.data } : t)));
    });
  };
  const assign = (email: string | null) => {
    if (s) act(() => patch(inboxPath(ref, `/threads/${s.id}`), { assignee_email: email }));
  };
  const sent = () => {
    threads.reload();
    setSummaryTick((n) => n + 1);
    inbox.reload();
  };

  useShortcuts({
    j: () => step(1),
    k: () => step(-1),
    o: () => index < 0 && threads.rows[0] && open(threads.rows[0].id),
    Escape: () => (help ? setHelp(false) : labelsOpen ? setLabelsOpen(false) : compose ? setCompose(null) : back()),
    r: () => s && setCompose('reply'),
    f: () => s && setCompose('forward'),
    c: () => setQuery({ compose: 'new', draft: undefined, t: undefined, panel: undefined }),
    e: () => s && s.folder !== 'archive' && s.folder !== 'sent' && move('archive'),
    '#': () => s && s.folder !== 'trash' && move('trash'),
    '!': () => s && s.folder !== 'spam' && move('spam'),
    u: unread,
    l: () => s && setLabelsOpen(!labelsOpen),
    '/': () => searchRef.current?.focus(),
    '?': () => setHelp(true),
  });

  if (inbox.error && !inbox.data)
    return (
      <>
        <p>
          <Link href="/inboxes">← Inboxes</Link>
        </p>
        <ErrorRetry error={inbox.error} status={inbox.errorStatus} retry={inbox.reload} />
      </>
    );
  if (!inbox.data) return <Loading />;
  const i = inbox.data;
  const reading = Boolean(threadId || composeNew || draftId || panel);
  const emptyText = q
    ? `Nothing matches “${q}”.`
    : label
      ? 'No conversation has this label.'
      : folder === 'inbox'
        ? 'No conversations in the inbox. Mail sent to this address shows here.'
        : `Nothing in ${folder}.`;
  return (
    <div class={`ib${reading ? ' reading' : ''}`}>
      <header class="ib-head">
        <div class="ib-title">
          <Link href="/inboxes" class="small">
            ← Inboxes
          </Link>
          <h1>{i.name || i.email_address}</h1>
          {i.name && <span class="muted small">{i.email_address}</span>}
        </div>
        <form
          class="ib-search"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            const v = String(new FormData(e.currentTarget).get('q') ?? '').trim();
            setQuery({ q: v || undefined, t: undefined, compose: undefined, draft: undefined, panel: undefined });
            searchRef.current?.blur();
          }}
        >
          <input
            ref={searchRef}
            key={q}
            name="q"
            type="search"
            aria-label="Search conversations"
            aria-keyshortcuts="/"
            placeholder="Search (press /)"
            defaultValue={q}
            maxLength={500}
            onKeyDown={(e) => e.key === 'Escape' && e.currentTarget.blur()}
          />
          <button class="btn">Search</button>
        </form>
      </header>
      <div class="ib-grid">
        <Sidebar
          inbox={i}
          labels={labels.data?.data ?? []}
          folder={folder}
          label={label}
          searching={Boolean(q)}
          choose={choose}
          compose={() => setQuery({ compose: 'new', draft: undefined, t: undefined, panel: undefined })}
          agent={() => setQuery({ panel: 'agent', t: undefined, compose: undefined, draft: undefined })}
          help={() => setHelp(true)}
          labelsChanged={labels.reload}
        />
        <section class="ib-list" aria-label="Conversation list">
          {q && (
            <p class="small muted ib-searching" role="status">
              Results for “{q}”, best first ·{' '}
              <button type="button" class="linkish" onClick={() => choose(folder, label || undefined)}>
                clear
              </button>
            </p>
          )}
          {fresh && (
            <button type="button" class="btn wide ib-fresh" onClick={() => choose(folder, label || undefined)}>
              New mail: show it
            </button>
          )}
          {threads.error && <ErrorRetry error={threads.error} status={threads.errorStatus} retry={threads.reload} />}
          {folder === 'drafts' && !q ? (
            <DraftList
              list={drafts}
              open={(d) =>
                d.type === 'reply' && d.thread_id
                  ? setQuery({ t: d.thread_id, compose: undefined, draft: undefined, panel: undefined })
                  : setQuery({ draft: d.id, compose: undefined, t: undefined, panel: undefined })
              }
            />
          ) : (
            <ThreadList list={threads} selected={threadId} open={open} empty={emptyText} />
          )}
        </section>
        <section class="ib-pane" aria-label="Reading pane">
          {actionError && <Alert>{actionError}</Alert>}
          {panel === 'agent' ? (
            <AgentPanel inbox={i.id} close={back} />
          ) : composeNew || draftId ? (
            <Composer
              key={draftId ?? 'new'}
              inbox={i.id}
              mode="new"
              draftId={draftId}
              onDraft={(id) => setQuery({ draft: id, compose: undefined })}
              onClose={() => {
                back();
                drafts.reload();
              }}
              onSent={() => {
                back();
                sent();
                drafts.reload();
              }}
            />
          ) : threadId ? (
            <Conversation
              inbox={i.id}
              threadId={threadId}
              summary={s}
              summaryError={summary.error}
              labels={labels.data?.data ?? []}
              members={members.data?.members ?? []}
              compose={compose}
              setCompose={setCompose}
              labelsOpen={labelsOpen}
              setLabelsOpen={setLabelsOpen}
              busy={busy}
              back={back}
              sent={sent}
              move={move}
              unread={unread}
              toggleLabel={toggleLabel}
              assign={assign}
            />
          ) : (
            <p class="muted ib-placeholder">
              Choose a conversation, or press <kbd>?</kbd> for the keyboard shortcuts.
            </p>
          )}
        </section>
      </div>
      <ShortcutHelp open={help} close={() => setHelp(false)} />
    </div>
  );
}
