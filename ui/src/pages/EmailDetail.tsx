// One email: who, what, status, its deliverability insights, and tabs for the event timeline (SMTP reply, MX, TLS, attempts,
// bounce reason, clicked link), the rendered HTML, the plain text, the raw MIME and its headers.
import { useState } from 'preact/hooks';
import { get, patch, post, type List } from '../api';
import { Alert, Badge, Code, Copy, ErrorRetry, KV, Loading, PageHead, Tabs } from '../components/ui';
import { EmailPreview, HeadersTable, parseHeaders } from '../components/EmailPreview';
import { Link } from '../components/Link';
import { EmailInsights } from '../components/Insights';
import { fmtDate } from '../format';
import { useAction, useLoad } from '../hooks';
import { canEdit, useSession } from '../session';

interface Email {
  id: string;
  message_id: string;
  to: string[];
  from: string;
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  last_event: string;
  created_at: string;
  scheduled_at: string | null;
  html: string | null;
  text: string | null;
  tags: { name: string; value: string }[];
}
export interface EmailEvent {
  id: string;
  type: string;
  recipient: string | null;
  data: any;
  detail: any;
  created_at: string;
}

const TABS = ['Timeline', 'Preview', 'Text', 'Raw', 'Headers'] as const;

const SUPPRESSED: Record<string, string> = {
  manual: 'on your suppression list (added by hand)',
  bounce: 'on your suppression list after a hard bounce',
  complaint: 'on your suppression list after a spam complaint',
  unsubscribed: 'the contact unsubscribed',
};
/** Detail keys shown under a tidy name above; the rest are listed with their names made readable. */
const SHOWN = [
  'response',
  'reply',
  'mx',
  'host',
  'mx_host',
  'tls',
  'attempt',
  'mode',
  'code',
  'enhanced',
  'origin',
  'category',
  'reason',
  'message',
];

/** The facts of an event a person wants first, then everything else the server recorded. */
export function eventFacts(ev: EmailEvent): [string, string][] {
  const d = ev.detail ?? {};
  const facts: [string, string][] = [];
  const add = (k: string, v: unknown) => {
    if (v !== undefined && v !== null && v !== '')
      facts.push([k, typeof v === 'object' ? JSON.stringify(v) : String(v)]);
  };
  add('Recipient', ev.recipient);
  add('SMTP reply', d.response ?? d.reply);
  add('Code', [d.code, d.enhanced].filter(Boolean).join(' '));
  add('MX host', d.mx_host ?? d.mx ?? d.host);
  add('TLS', d.tls === true ? 'yes' : d.tls === false ? 'no' : d.tls);
  add('Attempt', d.attempt);
  add('Mode', d.mode);
  add('Category', typeof d.category === 'string' ? d.category.replace(/_/g, ' ') : d.category);
  const b = ev.data?.bounce;
  if (b) {
    add('Bounce', `${b.type}${b.subType ? ` / ${b.subType}` : ''}`);
    add('Reason', b.message);
    add('Diagnostic', (b.diagnosticCode ?? []).join(' '));
  }
  const failed = ev.data?.failed;
  if (failed) {
    add('Failed', String(failed.reason ?? d.reason ?? '').replace(/_/g, ' '));
    add('Why', failed.message ?? d.message);
  }
  if (ev.data?.suppressed)
    add('Suppressed', SUPPRESSED[d.origin] ?? String(ev.data.suppressed.reason ?? '').replace(/_/g, ' '));
  add('Link', ev.data?.click?.link);
  add('User agent', ev.data?.click?.userAgent ?? ev.data?.open?.userAgent);
  for (const [k, v] of Object.entries(d))
    if (!SHOWN.includes(k))
      add(
        k.replace(/_/g, ' ').replace(/^\w/, (c) => c.toUpperCase()),
        v,
      );
  return facts;
}

export function Timeline({ events }: { events: EmailEvent[] }) {
  if (!events.length) return <p class="muted">No events yet.</p>;
  return (
    <ol class="timeline">
      {events.map((ev) => (
        <li key={ev.id}>
          <div class="tl-head">
            <Badge status={ev.type.replace(/^email\./, '')} />
            <time dateTime={ev.created_at}>{fmtDate(ev.created_at)}</time>
          </div>
          <KV items={eventFacts(ev)} />
        </li>
      ))}
    </ol>
  );
}

export function EmailDetail({ id }: { id: string }) {
  const email = useLoad(() => get<Email>(`/emails/${id}`), [id]);
  const events = useLoad(() => get<List<EmailEvent>>(`/emails/${id}/events`), [id]);
  const [tab, setTab] = useState<(typeof TABS)[number]>('Timeline');
  const needRaw = tab === 'Raw' || tab === 'Headers';
  const raw = useLoad(
    () => (needRaw ? get<string>(`/dashboard-api/emails/${id}/raw`) : Promise.resolve(undefined)),
    [id, needRaw],
  );
  if (email.error && !email.data)
    return (
      <>
        <p>
          <Link href="/emails">← Emails</Link>
        </p>
        <ErrorRetry error={email.error} status={email.errorStatus} retry={email.reload} />
      </>
    );
  if (!email.data) return <Loading />;
  const e = email.data;
  return (
    <>
      <p>
        <Link href="/emails">← Emails</Link>
      </p>
      <PageHead title={e.subject || '(no subject)'}>
        <Badge status={e.last_event} />
      </PageHead>
      <section class="card">
        <KV
          items={[
            ['From', e.from],
            ['To', e.to.join(', ')],
            ...(e.cc.length ? [['Cc', e.cc.join(', ')] as [string, string]] : []),
            ...(e.bcc.length ? [['Bcc', e.bcc.join(', ')] as [string, string]] : []),
            ...(e.reply_to.length ? [['Reply-To', e.reply_to.join(', ')] as [string, string]] : []),
            ['Created', fmtDate(e.created_at)],
            ...(e.scheduled_at ? [['Scheduled', fmtDate(e.scheduled_at)] as [string, string]] : []),
            [
              'Email ID',
              <span class="mono">
                {e.id} <Copy text={e.id} small />
              </span>,
            ],
            ['Message-ID', <span class="mono">{e.message_id}</span>],
            [
              'Tags',
              e.tags.length ? (
                <span class="tags">
                  {e.tags.map((t) => (
                    <span key={t.name} class="tag">
                      {t.name}: {t.value}
                    </span>
                  ))}
                </span>
              ) : (
                '—'
              ),
            ],
          ]}
        />
      </section>
      <EmailInsights id={e.id} />
      {e.last_event === 'scheduled' && e.scheduled_at && (
        <Scheduled
          id={e.id}
          at={e.scheduled_at}
          onChange={() => {
            email.reload();
            events.reload();
          }}
        />
      )}
      <Tabs tabs={TABS} tab={tab} onChange={setTab} label="Email details">
        {tab === 'Timeline' &&
          (events.data ? (
            <Timeline events={events.data.data} />
          ) : events.error ? (
            <Alert>{events.error}</Alert>
          ) : (
            <Loading />
          ))}
        {tab === 'Preview' && <EmailPreview html={e.html} title={e.subject} />}
        {tab === 'Text' &&
          (e.text ? (
            <Code>{e.text}</Code>
          ) : (
            <p class="muted">No plain-text part was given; recipients get one generated from the HTML (see Raw).</p>
          ))}
        {tab === 'Raw' &&
          (raw.error ? (
            <Alert kind="warn">{raw.error}</Alert>
          ) : raw.data === undefined ? (
            <Loading />
          ) : (
            <>
              <div class="row">
                <Copy text={raw.data} label="Copy raw" />
                <a
                  class="btn ghost"
                  download={`${e.id}.eml`}
                  href={URL.createObjectURL(new Blob([raw.data], { type: 'message/rfc822' }))}
                >
                  Download .eml
                </a>
              </div>
              <Code>{raw.data}</Code>
            </>
          ))}
        {tab === 'Headers' &&
          (raw.error ? (
            <Alert kind="warn">{raw.error}</Alert>
          ) : raw.data === undefined ? (
            <Loading />
          ) : (
            <HeadersTable headers={parseHeaders(raw.data)} />
          ))}
      </Tabs>
    </>
  );
}

/** A scheduled email: when it goes out, and (for owners and admins) reschedule or cancel it. */
function Scheduled({ id, at, onChange }: { id: string; at: string; onChange: () => void }) {
  const { state } = useSession();
  const local = (iso: string) => {
    const d = new Date(iso);
    return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  };
  const move = useAction(async (form: HTMLFormElement) => {
    const v = new FormData(form).get('when') as string;
    if (!v) throw new Error('Pick a date and time.');
    await patch(`/emails/${id}`, { scheduled_at: new Date(v).toISOString() });
    onChange();
  });
  const cancel = useAction(async () => {
    if (!confirm('Cancel this scheduled email? It will not be sent.')) return;
    await post(`/emails/${id}/cancel`);
    onChange();
  });
  return (
    <section class="card" data-testid="scheduled">
      <h2>Scheduled for {fmtDate(at)}</h2>
      {canEdit(state) ? (
        <form
          class="inline-form"
          onSubmit={(ev) => {
            ev.preventDefault();
            move.run(ev.currentTarget as HTMLFormElement);
          }}
        >
          <label class="field-inline">
            New time <input type="datetime-local" name="when" defaultValue={local(at)} />
          </label>
          <button class="btn" disabled={move.busy}>
            Reschedule
          </button>
          <button type="button" class="btn bad ghost" disabled={cancel.busy} onClick={() => cancel.run()}>
            Cancel sending
          </button>
          {(move.error || cancel.error) && <Alert>{move.error ?? cancel.error}</Alert>}
        </form>
      ) : (
        <p class="muted">Owners and admins can reschedule or cancel it.</p>
      )}
    </section>
  );
}
