// Reply, forward and compose, with the draft saved as you type: the first keystroke creates the
// draft (POST /inboxes/:inbox/drafts), later ones PATCH it after a short pause, one request at a
// time. Send flushes the last change, then sends through the API: a reply or a new email sends its
// draft (the one send path), a forward goes through the thread's forward (the original's
// attachments travel with it) and the draft is deleted. A forward's draft is a standalone draft
// remembered in this browser for its thread, so reopening the forward shows it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, del, get, patch, post } from '../../api';
import { Alert } from '../../components/ui';
import { addresses, inboxPath, readAll, who, type Draft, type DraftItem, type Message } from './types';

export type ComposeMode = 'reply' | 'forward' | 'new';
const SAVE_AFTER_MS = 600;

interface Props {
  inbox: string;
  mode: ComposeMode;
  threadId?: string;
  threadSubject?: string | null;
  /** The email answered or forwarded. */
  message?: Message;
  /** A draft to open (a new email's); replies and forwards find their own. */
  draftId?: string;
  onClose: () => void;
  onSent: (mode: ComposeMode) => void;
  /** A new draft's id, once created (the page keeps it in the URL so a reload reopens it). */
  onDraft?: (id: string) => void;
}

const forwardKey = (inbox: string, thread: string) => `mailroom:forward-draft:${inbox}:${thread}`;
const stripPrefix = (s: string) => s.replace(/^\s*((re|fwd?|aw|wg)\s*:\s*)+/i, '');

/** The reply draft of a thread, if any (the newest). */
export async function replyDraftOf(inbox: string, threadId: string): Promise<DraftItem | undefined> {
  const drafts = await readAll<DraftItem>(inboxPath(inbox, '/drafts'), 10);
  return drafts
    .filter((d) => d.type === 'reply' && d.thread_id === threadId)
    .sort((a, b) => b.updated_at.localeCompare(a.updated_at))[0];
}

export function Composer(p: Props) {
  const [to, setTo] = useState('');
  const [cc, setCc] = useState('');
  const [subject, setSubject] = useState('');
  const [text, setText] = useState('');
  const [ready, setReady] = useState(false);
  const [status, setStatus] = useState<'' | 'saving' | 'saved' | 'sending'>('');
  const [error, setError] = useState<string>();
  const id = useRef<string | undefined>(undefined);
  const chain = useRef<Promise<void>>(Promise.resolve());
  const timer = useRef<number | undefined>(undefined);
  const dirty = useRef(false); // typed since the last save began
  const mounted = useRef(true);
  const fields = useRef({ to, cc, subject, text });
  fields.current = { to, cc, subject, text };
  const textRef = useRef<HTMLTextAreaElement>(null);
  const toRef = useRef<HTMLInputElement>(null);

  // Opening: the existing draft (reply: the thread's; forward: the one remembered; new: the one named).
  useEffect(() => {
    let live = true;
    (async () => {
      let draftId = p.draftId;
      if (p.mode === 'reply' && p.threadId) draftId = (await replyDraftOf(p.inbox, p.threadId))?.id;
      if (p.mode === 'forward' && p.threadId)
        draftId = localStorage.getItem(forwardKey(p.inbox, p.threadId)) ?? undefined;
      let d: Draft | undefined;
      if (draftId)
        d = await get<Draft>(inboxPath(p.inbox, `/drafts/${draftId}`)).catch((e) => {
          if (e instanceof ApiError && e.status === 404) return undefined;
          throw e;
        });
      if (!live) return;
      if (d) {
        id.current = d.id;
        setTo((d.to ?? []).join(', '));
        setCc(d.cc.join(', '));
        setSubject(d.subject ?? '');
        setText(d.text ?? '');
        setStatus('saved');
      } else if (p.mode === 'forward') setSubject(`Fwd: ${stripPrefix(p.threadSubject ?? '')}`);
      setReady(true);
    })().catch((e: Error) => live && (setError(e.message), setReady(true)));
    return () => {
      live = false;
    };
  }, [p.inbox, p.mode, p.threadId, p.draftId]);

  // Closing with a change not yet saved: save it now rather than lose it.
  useEffect(
    () => () => {
      window.clearTimeout(timer.current);
      mounted.current = false;
      if (dirty.current) save();
    },
    [],
  );

  useEffect(() => {
    if (!ready) return;
    (p.mode === 'reply' ? textRef : toRef).current?.focus();
  }, [ready]);

  const body = () => {
    const f = fields.current;
    const list = (s: string) => (addresses(s).length ? addresses(s) : null);
    return p.mode === 'reply'
      ? { text: f.text || null, ...(f.cc ? { cc: list(f.cc) } : {}) }
      : { to: list(f.to), cc: list(f.cc), subject: f.subject || null, text: f.text || null };
  };

  /** Saves the current fields: creates the draft the first time, patches it after; one at a time. */
  const save = () => {
    chain.current = chain.current
      .then(async () => {
        dirty.current = false;
        setStatus('saving');
        if (!id.current) {
          const created = await post<{ id: string }>(inboxPath(p.inbox, '/drafts'), {
            ...body(),
            ...(p.mode === 'reply' ? { thread_id: p.threadId, reply_to_email_id: p.message?.id } : {}),
          });
          id.current = created.id;
          if (p.mode === 'forward' && p.threadId) localStorage.setItem(forwardKey(p.inbox, p.threadId), created.id);
          if (p.mode === 'new' && mounted.current) p.onDraft?.(created.id);
        } else await patch(inboxPath(p.inbox, `/drafts/${id.current}`), body());
        setStatus('saved');
        setError(undefined);
      })
      .catch((e: Error) => {
        setStatus('');
        setError(e.message);
      });
    return chain.current;
  };
  const changed = (key: keyof typeof fields.current, set: (v: string) => void) => (e: Event) => {
    const v = (e.currentTarget as HTMLInputElement).value;
    set(v);
    fields.current = { ...fields.current, [key]: v }; // the timer (or a close) may come before the render
    dirty.current = true;
    setStatus('saving');
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(save, SAVE_AFTER_MS);
  };

  const send = async () => {
    window.clearTimeout(timer.current);
    dirty.current = false;
    await save();
    if (!id.current) return;
    setStatus('sending');
    try {
      if (p.mode === 'forward') {
        const f = fields.current;
        await post(inboxPath(p.inbox, `/threads/${p.threadId}/emails/${p.message!.id}/forward`), {
          to: addresses(f.to),
          ...(addresses(f.cc).length ? { cc: addresses(f.cc) } : {}),
          ...(f.subject ? { subject: f.subject } : {}),
          ...(f.text ? { text: f.text } : {}),
        });
        await del(inboxPath(p.inbox, `/drafts/${id.current}`)).catch(() => undefined);
        localStorage.removeItem(forwardKey(p.inbox, p.threadId!));
      } else await post(inboxPath(p.inbox, `/drafts/${id.current}/send`), {});
      p.onSent(p.mode);
    } catch (e) {
      setStatus('saved');
      setError((e as Error).message);
    }
  };

  const discard = async () => {
    window.clearTimeout(timer.current);
    dirty.current = false;
    await chain.current;
    if (id.current) await del(inboxPath(p.inbox, `/drafts/${id.current}`)).catch(() => undefined);
    if (p.mode === 'forward' && p.threadId) localStorage.removeItem(forwardKey(p.inbox, p.threadId));
    p.onClose();
  };

  const title = p.mode === 'reply' ? 'Reply' : p.mode === 'forward' ? 'Forward' : 'New email';
  const replyTo = p.message ? (p.message.reply_to[0] ?? p.message.from) : '';
  return (
    <section class="card ib-composer" aria-label={title} data-testid="composer">
      <div class="ib-pane-head">
        <h3>{title}</h3>
        <span class="muted small" role="status" data-testid="draft-status">
          {status === 'saving'
            ? 'Saving…'
            : status === 'saved'
              ? 'Draft saved'
              : status === 'sending'
                ? 'Sending…'
                : ''}
        </span>
      </div>
      {!ready ? (
        <p class="muted">Opening the draft…</p>
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
              e.preventDefault();
              send();
            }
          }}
        >
          {p.mode === 'reply' ? (
            <p class="small muted ib-to">To {who(replyTo)}</p>
          ) : (
            <div class="field">
              <label for="ib-to">To</label>
              <input id="ib-to" ref={toRef} value={to} onInput={changed('to', setTo)} maxLength={2000} />
            </div>
          )}
          <div class="field">
            <label for="ib-cc">Cc</label>
            <input id="ib-cc" value={cc} onInput={changed('cc', setCc)} maxLength={2000} />
          </div>
          {p.mode !== 'reply' && (
            <div class="field">
              <label for="ib-subject">Subject</label>
              <input id="ib-subject" value={subject} onInput={changed('subject', setSubject)} maxLength={998} />
            </div>
          )}
          <div class="field">
            <label for="ib-text">Message</label>
            <textarea
              id="ib-text"
              ref={textRef}
              rows={8}
              value={text}
              onInput={changed('text', setText)}
              maxLength={200_000}
            />
          </div>
          {p.mode === 'forward' && p.message && p.message.attachments.length > 0 && (
            <p class="hint">
              {p.message.attachments.length > 1
                ? `The original's ${p.message.attachments.length} attachments go along.`
                : "The original's attachment goes along."}
            </p>
          )}
          {error && <Alert>{error}</Alert>}
          <div class="row">
            <button class="btn primary" disabled={status === 'sending'}>
              Send
            </button>
            <button type="button" class="btn ghost" onClick={p.onClose}>
              Close
            </button>
            <button type="button" class="btn ghost bad" onClick={discard}>
              Discard draft
            </button>
            <span class="hint">Ctrl+Enter sends</span>
          </div>
        </form>
      )}
    </section>
  );
}
