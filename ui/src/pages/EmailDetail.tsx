// One email: who, what, status, and tabs for the event timeline (SMTP reply, MX, TLS, attempts,
// bounce reason, clicked link), the rendered HTML, the plain text, the raw MIME and its headers.
import { useState } from 'preact/hooks';
import { get, type List } from '../api';
import { Alert, Badge, Code, Copy, ErrorRetry, KV, Loading, PageHead, Tabs } from '../components/ui';
import { EmailPreview, HeadersTable, parseHeaders } from '../components/EmailPreview';
import { Link } from '../components/Link';
import { fmtDate } from '../format';
import { useLoad } from '../hooks';

interface Email {
  id: string; message_id: string; to: string[]; from: string; cc: string[]; bcc: string[]; reply_to: string[]; subject: string;
  last_event: string; created_at: string; scheduled_at: string | null; html: string | null; text: string | null; tags: { name: string; value: string }[];
}
export interface EmailEvent { id: string; type: string; recipient: string | null; data: any; detail: any; created_at: string }

const TABS = ['Timeline', 'Preview', 'Text', 'Raw', 'Headers'] as const;

/** The facts of an event a person wants first, then everything else the server recorded. */
export function eventFacts(ev: EmailEvent): [string, string][] {
  const d = ev.detail ?? {};
  const facts: [string, string][] = [];
  const add = (k: string, v: unknown) => { if (v !== undefined && v !== null && v !== '') facts.push([k, typeof v === 'object' ? JSON.stringify(v) : String(v)]); };
  add('Recipient', ev.recipient);
  add('SMTP reply', d.response ?? d.reply);
  add('MX host', d.mx ?? d.host);
  add('TLS', d.tls === true ? 'yes' : d.tls === false ? 'no' : d.tls);
  add('Attempt', d.attempt);
  add('Mode', d.mode);
  const b = ev.data?.bounce;
  if (b) { add('Bounce', `${b.type}${b.subType ? ` / ${b.subType}` : ''}`); add('Reason', b.message); add('Diagnostic', (b.diagnosticCode ?? []).join(' ')); }
  add('Failed', ev.data?.failed?.reason ?? undefined);
  add('Suppressed', ev.data?.suppressed?.reason ?? undefined);
  add('Link', ev.data?.click?.link);
  add('User agent', ev.data?.click?.userAgent ?? ev.data?.open?.userAgent);
  for (const [k, v] of Object.entries(d)) if (!['response', 'reply', 'mx', 'host', 'tls', 'attempt', 'mode'].includes(k)) add(k, v);
  return facts;
}

export function Timeline({ events }: { events: EmailEvent[] }) {
  if (!events.length) return <p class="muted">No events yet.</p>;
  return (
    <ol class="timeline">
      {events.map((ev) => (
        <li key={ev.id}>
          <div class="tl-head"><Badge status={ev.type.replace(/^email\./, "")} /><time dateTime={ev.created_at}>{fmtDate(ev.created_at)}</time></div>
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
  const raw = useLoad(() => (needRaw ? get<string>(`/dashboard-api/emails/${id}/raw`) : Promise.resolve(undefined)), [id, needRaw]);
  if (email.error && !email.data) return <><p><Link href="/emails">← Emails</Link></p><ErrorRetry error={email.error} retry={email.reload} /></>;
  if (!email.data) return <Loading />;
  const e = email.data;
  return (
    <>
      <p><Link href="/emails">← Emails</Link></p>
      <PageHead title={e.subject || '(no subject)'}><Badge status={e.last_event} /></PageHead>
      <section class="card">
        <KV items={[
          ['From', e.from], ['To', e.to.join(', ')], ...(e.cc.length ? [['Cc', e.cc.join(', ')] as [string, string]] : []),
          ...(e.bcc.length ? [['Bcc', e.bcc.join(', ')] as [string, string]] : []), ...(e.reply_to.length ? [['Reply-To', e.reply_to.join(', ')] as [string, string]] : []),
          ['Created', fmtDate(e.created_at)], ...(e.scheduled_at ? [['Scheduled', fmtDate(e.scheduled_at)] as [string, string]] : []),
          ['Email ID', <span class="mono">{e.id} <Copy text={e.id} small /></span>], ['Message-ID', <span class="mono">{e.message_id}</span>],
          ['Tags', e.tags.length ? <span class="tags">{e.tags.map((t) => <span key={t.name} class="tag">{t.name}: {t.value}</span>)}</span> : '—'],
        ]} />
      </section>
      <Tabs tabs={TABS} tab={tab} onChange={setTab} label="Email details">
        {tab === 'Timeline' && (events.data ? <Timeline events={events.data.data} /> : events.error ? <Alert>{events.error}</Alert> : <Loading />)}
        {tab === 'Preview' && <EmailPreview html={e.html} title={e.subject} />}
        {tab === 'Text' && (e.text ? <Code>{e.text}</Code> : <p class="muted">No plain-text part was given; recipients get one generated from the HTML (see Raw).</p>)}
        {tab === 'Raw' && (raw.error ? <Alert kind="warn">{raw.error}</Alert> : raw.data === undefined ? <Loading /> : (
          <>
            <div class="row"><Copy text={raw.data} label="Copy raw" /><a class="btn ghost" download={`${e.id}.eml`} href={URL.createObjectURL(new Blob([raw.data], { type: 'message/rfc822' }))}>Download .eml</a></div>
            <Code>{raw.data}</Code>
          </>
        ))}
        {tab === 'Headers' && (raw.error ? <Alert kind="warn">{raw.error}</Alert> : raw.data === undefined ? <Loading /> : (
          <HeadersTable headers={parseHeaders(raw.data)} />
        ))}
      </Tabs>
    </>
  );
}
