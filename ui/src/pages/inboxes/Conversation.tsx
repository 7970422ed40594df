// One thread read as a conversation: every email in order (sender, time, the HTML in the sandboxed
// preview frame or the text, the attachments), its toolbar, and the reply or forward composer
// under it. A thread with a reply draft opens with the draft.
import { useEffect, useState } from 'preact/hooks';
import { EmailPreview } from '../../components/EmailPreview';
import { ErrorRetry, Loading } from '../../components/ui';
import { bytes, fmtDate } from '../../format';
import { useLoad } from '../../hooks';
import { Composer, replyDraftOf, type ComposeMode } from './Composer';
import { LabelChips, ThreadActions, type Member } from './ThreadActions';
import { Clip } from './ThreadList';
import { inboxPath, readAll, who, type Folder, type Label, type Message, type ThreadSummary } from './types';

interface Props {
  inbox: string;
  threadId: string;
  summary: ThreadSummary | undefined;
  summaryError?: string;
  labels: Label[];
  members: Member[];
  compose: ComposeMode | null;
  setCompose: (m: ComposeMode | null) => void;
  labelsOpen: boolean;
  setLabelsOpen: (open: boolean) => void;
  busy: boolean;
  back: () => void;
  sent: () => void;
  move: (f: Folder) => void;
  unread: () => void;
  toggleLabel: (l: Label, on: boolean) => Promise<boolean>;
  assign: (email: string | null) => void;
}

export function Conversation(p: Props) {
  const [tick, setTick] = useState(0);
  const messages = useLoad(
    () => readAll<Message>(inboxPath(p.inbox, `/threads/${p.threadId}/emails`)),
    [p.inbox, p.threadId, tick],
  );
  // A reply draft left on this thread opens with it.
  useEffect(() => {
    let live = true;
    replyDraftOf(p.inbox, p.threadId)
      .then((d) => {
        if (live && d) p.setCompose('reply');
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [p.inbox, p.threadId]);
  const list = messages.data ?? [];
  const answered = [...list].reverse().find((m) => m.direction === 'inbound') ?? list[list.length - 1];
  const s = p.summary;
  return (
    <article class="ib-conversation" aria-labelledby="ib-subject-title" data-testid="conversation">
      <div class="ib-pane-head">
        <button type="button" class="btn sm ghost ib-back" onClick={p.back} aria-keyshortcuts="Escape">
          ← Back
        </button>
        <h2 id="ib-subject-title">{s?.subject || (s ? '(no subject)' : '…')}</h2>
      </div>
      {p.summaryError && <ErrorRetry error={p.summaryError} retry={() => setTick((n) => n + 1)} />}
      {s && (
        <>
          <p class="small muted ib-meta">
            In {s.folder}
            {s.assignee_email ? ` · assigned to ${s.assignee_email}` : ''} <LabelChips labels={s.labels} />
          </p>
          <ThreadActions
            summary={s}
            labels={p.labels}
            members={p.members}
            labelsOpen={p.labelsOpen}
            setLabelsOpen={p.setLabelsOpen}
            busy={p.busy}
            reply={() => p.setCompose('reply')}
            forward={() => p.setCompose('forward')}
            move={p.move}
            unread={p.unread}
            toggleLabel={p.toggleLabel}
            assign={p.assign}
          />
        </>
      )}
      {messages.error && <ErrorRetry error={messages.error} status={messages.errorStatus} retry={messages.reload} />}
      {!messages.data ? (
        !messages.error && <Loading />
      ) : (
        <ol class="ib-messages">
          {list.map((m) => (
            <MessageView key={m.id} m={m} />
          ))}
        </ol>
      )}
      {p.compose && p.compose !== 'new' && answered && (
        <Composer
          key={`${p.threadId}:${p.compose}`}
          inbox={p.inbox}
          mode={p.compose}
          threadId={p.threadId}
          threadSubject={s?.subject ?? answered.subject}
          message={answered}
          onClose={() => p.setCompose(null)}
          onSent={() => {
            p.setCompose(null);
            setTick((n) => n + 1);
            p.sent();
          }}
        />
      )}
    </article>
  );
}

function MessageView({ m }: { m: Message }) {
  return (
    <li class={`card ib-message ${m.direction}`} data-testid="message">
      <header class="ib-message-head">
        <div class="ib-from">
          <strong title={m.from}>{who(m.from)}</strong>
          {m.direction === 'outbound' && <span class="badge muted">sent</span>}
          <div class="small muted ib-addr">
            {m.from} → {m.to.join(', ')}
            {m.cc.length ? ` · cc ${m.cc.join(', ')}` : ''}
          </div>
        </div>
        <time class="small muted nowrap" dateTime={m.received_at}>
          {fmtDate(m.received_at)}
        </time>
      </header>
      {m.html ? (
        <EmailPreview html={m.html} title={m.subject ?? 'an email'} />
      ) : (
        <pre class="ib-text">{m.text ?? ''}</pre>
      )}
      {m.attachments.length > 0 && (
        <ul class="ib-attachments" aria-label="Attachments">
          {m.attachments.map((a) => (
            <li key={a.id}>
              <Clip /> {a.filename ?? '(unnamed)'}
              {a.size !== null ? <span class="muted small"> · {bytes(a.size)}</span> : null}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}
