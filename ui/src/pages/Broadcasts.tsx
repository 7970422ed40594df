// Broadcasts: the list with its compose form (BroadcastNew.tsx), and a broadcast's page: metrics
// with live progress, its content (editable while a draft: raw HTML or a visual editor's design,
// components/EmailContent.tsx), a preview as a chosen contact, a test send, then (below the
// content) send now or at a time through a review step that names the audience after exclusions
// and asks for an explicit confirmation; pause, resume, cancel, delete, and its recipients by
// event type. Pieces in broadcasts/.
import { useEffect, useRef, useState } from 'preact/hooks';
import { del, get, patch, post } from '../api';
import { Metrics, type Stats } from './broadcasts/Metrics';
import { PreviewAs } from './broadcasts/PreviewAs';
import { Recipients } from './broadcasts/Recipients';
import { Review } from './broadcasts/Review';
import { Alert, Badge, KV, Loading, PageHead } from '../components/ui';
import { Link } from '../components/Link';
import { EmailContent, type EmailDocument } from '../components/EmailContent';
import { fmtDate, num } from '../format';
import { useAction, useLoad } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';
import { Pickers } from './BroadcastNew';

export { Broadcasts } from './BroadcastNew';

interface Item {
  id: string;
  name: string;
  segment_id: string | null;
  status: string;
  created_at: string;
  scheduled_at: string | null;
  sent_at: string | null;
}
interface Broadcast extends Item {
  from: string | null;
  subject: string | null;
  reply_to: string[] | null;
  preview_text: string | null;
  topic_id: string | null;
  html: string | null;
  text: string | null;
  document?: EmailDocument | null;
  stats: Stats;
  pause_reason: string | null;
  completed_at: string | null;
}

const badge = (s: string) =>
  s === 'sent' ? 'enabled' : s === 'paused' || s === 'canceled' ? 'failed' : s === 'draft' ? 'draft' : 'pending';

export function BroadcastDetail({ id }: { id: string }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const b = useLoad(() => get<Broadcast>(`/broadcasts/${encodeURIComponent(id)}`), [id]);
  const [d, setD] = useState<{
    name: string;
    from: string;
    subject: string;
    preview_text: string;
    html: string;
    document: EmailDocument | null;
    text: string;
    segment: string;
    topic: string;
  }>();
  const [when, setWhen] = useState('');
  const [testTo, setTestTo] = useState('');
  const [note, setNote] = useState<string>();
  const [reviewing, setReviewing] = useState(false);
  // The design as last loaded or saved (the server's copy is sanitised, so not comparable as text).
  const savedDoc = useRef('null');
  useEffect(() => {
    if (b.data)
      setD({
        name: b.data.name,
        from: b.data.from ?? '',
        subject: b.data.subject ?? '',
        preview_text: b.data.preview_text ?? '',
        html: b.data.html ?? '',
        document: b.data.document ?? null,
        text: b.data.text ?? '',
        segment: b.data.segment_id ?? '',
        topic: b.data.topic_id ?? '',
      });
    savedDoc.current = JSON.stringify(b.data?.document ?? null);
  }, [b.data?.id, b.data?.status]);
  // Live progress while it is on its way.
  useEffect(() => {
    if (!b.data || (!['queued', 'sending', 'scheduled'].includes(b.data.status) && b.data.stats.queued === 0)) return;
    const timer = setTimeout(() => b.reload(), 2000);
    return () => clearTimeout(timer);
  }, [b.data]);
  const act = (fn: () => Promise<unknown>) =>
    useAction(async () => {
      await fn();
      b.reload();
    });
  const save = act(async () => {
    const sent = JSON.stringify(d!.document);
    await patch(`/broadcasts/${id}`, {
      name: d!.name,
      from: d!.from,
      subject: d!.subject,
      preview_text: d!.preview_text || null,
      // a design's plain text is generated from it by the server
      ...(d!.document ? { document: d!.document } : { html: d!.html || null, text: d!.text || null }),
      segment_id: d!.segment,
      topic_id: d!.topic || null,
    });
    savedDoc.current = sent;
  });
  const send = act(() => post(`/broadcasts/${id}/send`, when.trim() ? { scheduled_at: when.trim() } : {}));
  const pause = act(() => post(`/broadcasts/${id}/pause`));
  const resume = act(() => post(`/broadcasts/${id}/resume`));
  const cancel = act(() => post(`/broadcasts/${id}/cancel`));
  const test = useAction(async () => {
    const r = await post<{ data: { to: string }[] }>(`/broadcasts/${id}/test`, {
      to: testTo
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    });
    setNote(`Test sent to ${r.data.map((x) => x.to).join(', ')}.`);
  });
  const remove = useAction(async () => {
    if (confirm('Delete this draft?')) {
      await del(`/broadcasts/${id}`);
      navigate('/broadcasts');
    }
  });
  if (b.error)
    return (
      <>
        <p>
          <Link href="/broadcasts">← Broadcasts</Link>
        </p>
        <Alert>{b.error}</Alert>
      </>
    );
  if (!b.data || !d) return <Loading />;
  const x = b.data;
  const draft = x.status === 'draft';
  const error = save.error ?? send.error ?? pause.error ?? resume.error ?? cancel.error ?? test.error ?? remove.error;
  const set = (k: keyof typeof d) => (e: Event) => setD({ ...d, [k]: (e.currentTarget as HTMLInputElement).value });
  const s = x.stats;
  const dirty =
    d.name !== x.name ||
    d.from !== (x.from ?? '') ||
    d.subject !== (x.subject ?? '') ||
    d.preview_text !== (x.preview_text ?? '') ||
    (d.document || x.document ? JSON.stringify(d.document) !== savedDoc.current : d.html !== (x.html ?? '')) ||
    (!d.document && d.text !== (x.text ?? '')) || // a design's text is generated
    d.segment !== (x.segment_id ?? '') ||
    d.topic !== (x.topic_id ?? '');
  const live = ['queued', 'sending', 'scheduled'].includes(x.status) || s.queued > 0;
  return (
    <>
      <p>
        <Link href="/broadcasts">← Broadcasts</Link>
      </p>
      <PageHead title={x.name || '(unnamed broadcast)'}>
        <Badge status={badge(x.status)} text={x.status} />
        {edit && ['scheduled', 'queued', 'sending'].includes(x.status) && (
          <button class="btn" onClick={() => pause.run()} disabled={pause.busy}>
            Pause
          </button>
        )}
        {edit && x.status === 'paused' && (
          <button class="btn primary" onClick={() => resume.run()} disabled={resume.busy}>
            Resume
          </button>
        )}
        {edit && ['scheduled', 'queued', 'sending', 'paused'].includes(x.status) && (
          <button class="btn bad ghost" onClick={() => cancel.run()} disabled={cancel.busy}>
            Cancel
          </button>
        )}
        {edit && draft && (
          <button class="btn bad ghost" onClick={() => remove.run()}>
            Delete
          </button>
        )}
      </PageHead>
      {error && <Alert>{error}</Alert>}
      {note && <Alert kind="ok">{note}</Alert>}
      {x.pause_reason && <Alert kind="warn">Paused: {x.pause_reason}</Alert>}
      <section class="card" data-testid="progress">
        <h2>Progress</h2>
        <Metrics s={s} live={live} />
        <KV
          items={[
            ['Suppressed', num(s.suppressed)],
            ['Failed / canceled', `${num(s.failed)} / ${num(s.canceled)}`],
            [
              'Skipped (unsubscribed / topic / suppressed)',
              `${num(s.skipped.unsubscribed)} / ${num(s.skipped.topic)} / ${num(s.skipped.suppressed)}`,
            ],
            ['Sent', fmtDate(x.sent_at)],
            ['Scheduled', fmtDate(x.scheduled_at)],
            ['Completed', fmtDate(x.completed_at)],
          ]}
        />
        <p>
          <Link href={`/emails?broadcast_id=${x.id}`}>Its emails</Link>
        </p>
      </section>
      {edit && (
        <section class="card">
          <h2>Test send</h2>
          <div class="field">
            <label for="bc-test">To (comma separated, up to 50)</label>
            <input
              id="bc-test"
              value={testTo}
              onInput={(e) => setTestTo(e.currentTarget.value)}
              placeholder="me@example.com"
            />
          </div>
          <button class="btn" onClick={() => test.run()} disabled={test.busy || !testTo.trim()}>
            Send test
          </button>
        </section>
      )}
      <section class="card">
        <h2>Content</h2>
        {draft && (
          <Pickers
            segment={d.segment}
            topic={d.topic}
            onSegment={(v) => setD({ ...d, segment: v })}
            onTopic={(v) => setD({ ...d, topic: v })}
            disabled={!edit}
          />
        )}
        {(['name', 'from', 'subject', 'preview_text'] as const).map((k) => (
          <div class="field" key={k}>
            <label for={`bc-${k}`}>{k.replace('_', ' ')}</label>
            <input id={`bc-${k}`} value={d[k]} onInput={set(k)} disabled={!edit || !draft} />
          </div>
        ))}
        <EmailContent
          id="bc-html"
          label={
            <>
              HTML ({'{{{contact.first_name|there}}}'}, {'{{{RESEND_UNSUBSCRIBE_URL}}}'})
            </>
          }
          title={d.name || 'Broadcast'}
          value={d}
          disabled={!edit || !draft}
          onChange={(f) => setD((v) => v && { ...v, ...f(v) })}
        />
        {!d.document && (
          <div class="field">
            <label for="bc-text">Plain text (derived from the HTML when empty)</label>
            <textarea
              id="bc-text"
              class="mono"
              rows={4}
              value={d.text}
              onInput={set('text')}
              disabled={!edit || !draft}
            />
          </div>
        )}
        {edit && draft && (
          <button class="btn primary" onClick={() => save.run()} disabled={save.busy}>
            Save draft
          </button>
        )}
      </section>
      <PreviewAs
        id={x.id}
        segment={draft ? d.segment : (x.segment_id ?? '')}
        title={x.name || 'Broadcast'}
        unsaved={
          edit && draft
            ? {
                subject: d.subject,
                html: d.html,
                text: d.document ? '' : d.text,
                preview_text: d.preview_text,
                from: d.from,
              }
            : undefined
        }
      />
      {edit && draft && (
        <section class="card" data-testid="send-box">
          <h2>Send</h2>
          <div class="field">
            <label for="bc-when">When (empty: now; or "tomorrow at 9am", an ISO date)</label>
            <input
              id="bc-when"
              value={when}
              onInput={(e) => {
                setWhen(e.currentTarget.value);
                setReviewing(false);
              }}
            />
          </div>
          {dirty && <p class="muted">Save the draft first: the review shows what is saved, which is what is sent.</p>}
          {!reviewing ? (
            <button class="btn primary" onClick={() => setReviewing(true)} disabled={dirty}>
              Review before sending
            </button>
          ) : (
            <Review
              id={x.id}
              from={x.from ?? ''}
              subject={x.subject ?? ''}
              when={when.trim()}
              busy={send.busy}
              onBack={() => setReviewing(false)}
              onConfirm={() => send.run()}
            />
          )}
        </section>
      )}
      {x.status !== 'draft' && (
        <Recipients
          id={x.id}
          refresh={`${s.sent}|${s.delivered}|${s.opened}|${s.clicked}|${s.bounced}|${s.complained}|${s.unsubscribed}`}
        />
      )}
    </>
  );
}
