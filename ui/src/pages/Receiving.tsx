// Receiving: mail that arrived on the MX listener for the team's receiving domains, newest first
// (more rows on scroll), and one received email: who, the SPF/DKIM/DMARC/ARC verdicts, the HTML,
// text and headers, the raw message and the attachments with their signed download links.
import { useState } from 'preact/hooks';
import { get, qs, type List } from '../api';
import {
  AgoCell,
  Alert,
  Badge,
  Code,
  Copy,
  Empty,
  ErrorRetry,
  KV,
  Loading,
  PageHead,
  PagedTable,
  Tabs,
} from '../components/ui';
import { EmailPreview, HeadersTable } from '../components/EmailPreview';
import { Link } from '../components/Link';
import { bytes, fmtDate } from '../format';
import { useLoad, usePaged } from '../hooks';

interface AttachmentMeta {
  id: string;
  filename: string | null;
  content_type: string;
  content_disposition: string;
  size: number;
}
interface ReceivedItem {
  id: string;
  from: string;
  to: string[];
  cc: string[] | null;
  received_for: string[];
  subject: string;
  message_id: string;
  created_at: string;
  attachments: AttachmentMeta[];
}
type Verdict = 'pass' | 'fail' | 'gray' | 'processing_failed' | 'unknown';
/** Resend's verdict words as a person reads them: "gray" means nothing to check (no record, no signature). */
const VERDICT_TEXT: Record<Verdict, [string, string]> = {
  pass: ['Pass', 'The check passed.'],
  fail: ['Fail', 'The check failed.'],
  gray: ['None', 'Nothing to check: no record, signature or seal (or a neutral result).'],
  processing_failed: ['Error', 'The check could not be completed (a DNS error or a malformed record).'],
  unknown: ['Unknown', 'No result was recorded.'],
};
interface Received extends ReceivedItem {
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  authentication: { spf: Verdict; dkim: Verdict; dmarc: Verdict; arc: Verdict } | null;
  raw: { download_url: string; expires_at: string } | null;
}
interface Attachment extends AttachmentMeta {
  download_url: string | null;
  expires_at: string | null;
}

const TABS = ['Preview', 'Text', 'Headers'] as const;
const joined = (a: string[] | null | undefined) => (a?.length ? a.join(', ') : undefined);

export function Receiving() {
  const list = usePaged<ReceivedItem>((after) => `/emails/receiving${qs({ limit: 50, after })}`, '');
  return (
    <>
      <PageHead title="Receiving" sub="Mail that arrived for your receiving domains, newest first." />
      {list.error && <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />}
      {!list.loaded ? (
        <Loading />
      ) : list.error && !list.rows.length ? null : list.rows.length === 0 ? (
        <Empty title="No mail received yet">
          <ol class="steps">
            <li>
              Turn on receiving for a domain: tick <em>Receive mail at …</em> in the settings of its{' '}
              <Link href="/domains">page</Link> (through the API: <code>PATCH /domains/:id</code> with{' '}
              <code>{'{"capabilities": {"receiving": "enabled"}}'}</code>).
            </li>
            <li>
              Publish the <strong>MX</strong> record the <Link href="/domains">domain's page</Link> then lists, and
              press Verify.
            </li>
            <li>
              Mail for that domain arrives on the MX listener (<code>MAILROOM_MX_LISTEN</code>, port 25 in production)
              and shows here, with an <code>email.received</code> webhook event.
            </li>
          </ol>
        </Empty>
      ) : (
        <PagedTable
          list={list}
          head={
            <>
              <th scope="col">From</th>
              <th scope="col">To</th>
              <th scope="col">Subject</th>
              <th scope="col" class="right">
                Attachments
              </th>
              <th scope="col">Received</th>
            </>
          }
        >
          {list.rows.map((e) => (
            <tr key={e.id}>
              <td class="ellipsis" title={e.from}>
                {e.from}
              </td>
              <td class="ellipsis" title={e.to.join(', ')}>
                {e.to.join(', ')}
              </td>
              <td class="ellipsis">
                <Link href={`/receiving/${e.id}`}>{e.subject || '(no subject)'}</Link>
              </td>
              <td class="right">{e.attachments.length}</td>
              <AgoCell at={e.created_at} />
            </tr>
          ))}
        </PagedTable>
      )}
    </>
  );
}

export function ReceivedDetail({ id }: { id: string }) {
  const email = useLoad(() => get<Received>(`/emails/receiving/${id}`), [id]);
  const atts = useLoad(() => get<List<Attachment>>(`/emails/receiving/${id}/attachments`), [id]);
  const [tab, setTab] = useState<(typeof TABS)[number]>('Preview');
  if (email.error && !email.data)
    return (
      <>
        <p>
          <Link href="/receiving">← Receiving</Link>
        </p>
        <ErrorRetry error={email.error} status={email.errorStatus} retry={email.reload} />
      </>
    );
  if (!email.data) return <Loading />;
  const e = email.data;
  const auth = e.authentication;
  return (
    <>
      <p>
        <Link href="/receiving">← Receiving</Link>
      </p>
      <PageHead title={e.subject || '(no subject)'}>
        {e.raw && (
          <a class="btn" href={e.raw.download_url} download={`${e.id}.eml`}>
            Download raw (.eml)
          </a>
        )}
      </PageHead>
      <section class="card">
        <KV
          items={[
            ['From', e.from],
            ['To', e.to.join(', ')],
            ['Cc', joined(e.cc)],
            ['Received for', joined(e.received_for)],
            ['Received', fmtDate(e.created_at)],
            ['Message-ID', <span class="mono">{e.message_id}</span>],
            [
              'Email ID',
              <span class="mono">
                {e.id} <Copy text={e.id} small />
              </span>,
            ],
          ]}
        />
        {!e.raw && (
          <p class="muted small">
            The raw message is no longer kept (<code>MAILROOM_RETENTION_DAYS</code>); the record stays.
          </p>
        )}
      </section>
      <section class="card" aria-labelledby="auth-head">
        <h2 id="auth-head">Authentication</h2>
        {auth ? (
          <KV
            class="verdicts"
            items={(['spf', 'dkim', 'dmarc', 'arc'] as const).map((k) => [
              k.toUpperCase(),
              <span title={VERDICT_TEXT[auth[k]]?.[1]}>
                <Badge status={auth[k]} text={VERDICT_TEXT[auth[k]]?.[0] ?? auth[k]} />
              </span>,
            ])}
          />
        ) : (
          <p class="muted">Not evaluated for this message.</p>
        )}
      </section>
      <Tabs tabs={TABS} tab={tab} onChange={setTab} label="Received email">
        {tab === 'Preview' && <EmailPreview html={e.html} title={e.subject} />}
        {tab === 'Text' && (e.text ? <Code>{e.text}</Code> : <p class="muted">This email has no plain-text part.</p>)}
        {tab === 'Headers' && (
          <HeadersTable
            headers={Object.entries(e.headers).flatMap(([k, v]) =>
              v.split('\n').map((x) => [k, x] as [string, string]),
            )}
          />
        )}
      </Tabs>
      <section class="card" aria-labelledby="att-head">
        <h2 id="att-head">Attachments</h2>
        {atts.error ? (
          <Alert>{atts.error}</Alert>
        ) : !atts.data ? (
          <Loading />
        ) : atts.data.data.length === 0 ? (
          <p class="muted">None.</p>
        ) : (
          <div class="table-wrap">
            <table class="list" data-testid="attachments">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col" class="right">
                    Size
                  </th>
                  <th scope="col">Disposition</th>
                  <th scope="col">
                    <span class="sr-only">Download</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {atts.data.data.map((a) => (
                  <tr key={a.id}>
                    <td class="ellipsis" title={a.filename ?? undefined}>
                      {a.filename ?? <span class="muted">(no name)</span>}
                    </td>
                    <td class="mono">{a.content_type}</td>
                    <td class="right nowrap">{bytes(a.size)}</td>
                    <td>{a.content_disposition}</td>
                    <td class="right">
                      {a.download_url ? (
                        <a
                          class="btn ghost sm"
                          href={a.download_url}
                          download={a.filename ?? ''}
                          aria-label={`Download ${a.filename ?? 'attachment'}`}
                        >
                          Download
                        </a>
                      ) : (
                        <span class="muted small">removed by retention</span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
