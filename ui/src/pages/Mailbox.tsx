// Mailbox (capture mode): every message "delivered" is kept here instead of leaving the machine:
// a list on the left, the selected message (preview, headers, raw) on the right.
import { useState } from 'preact/hooks';
import { get } from '../api';
import { Empty, ErrorRetry, Loading, PageHead } from '../components/ui';
import { EmailPreview, HeadersTable, parseHeaders } from '../components/EmailPreview';
import { Link } from '../components/Link';
import { ago } from '../format';
import { useLoad, usePaged } from '../hooks';
import { useSession } from '../session';
import type { EmailItem } from './Emails';

export function Mailbox() {
  const { state } = useSession();
  const list = usePaged<EmailItem>((after) => `/emails?limit=50${after ? `&after=${after}` : ''}`, 'mailbox');
  const [sel, setSel] = useState<string>();
  const id = sel ?? list.rows[0]?.id;
  const email = useLoad(
    () =>
      id
        ? get<{ subject: string; html: string | null; text: string | null; from: string; to: string[] }>(
            `/emails/${id}`,
          )
        : Promise.resolve(undefined),
    [id],
  );
  const raw = useLoad(() => (id ? get<string>(`/dashboard-api/emails/${id}/raw`) : Promise.resolve(undefined)), [id]);
  if (state.delivery_mode !== 'capture') {
    return (
      <>
        <PageHead title="Mailbox" />
        <Empty title="The Mailbox is for capture mode">
          This server delivers mail for real (<code>MAILROOM_DELIVERY_MODE={state.delivery_mode}</code>). Set it to{' '}
          <code>capture</code> for development: nothing leaves the machine and every message shows here.
        </Empty>
      </>
    );
  }
  return (
    <>
      <PageHead title="Mailbox" sub="Capture mode: messages are kept here; nothing leaves the machine." />
      {list.error && <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />}
      {!list.loaded ? (
        <Loading />
      ) : list.error && !list.rows.length ? null : list.rows.length === 0 ? (
        <Empty title="The mailbox is empty">Send an email through the API or SMTP and it appears here at once.</Empty>
      ) : (
        <div class="mailbox">
          <ul class="mail-list" aria-label="Messages">
            {list.rows.map((e) => (
              <li key={e.id}>
                <button type="button" aria-current={e.id === id} onClick={() => setSel(e.id)}>
                  <span class="ellipsis strong">{e.subject || '(no subject)'}</span>
                  <span class="ellipsis small muted">
                    {e.from} → {e.to.join(', ')}
                  </span>
                  <span class="small muted">{ago(e.created_at)}</span>
                </button>
              </li>
            ))}
            <li>
              <div ref={list.sentinel} />
            </li>
            {list.hasMore && (
              <li>
                <button type="button" class="more" onClick={list.more} disabled={list.busy}>
                  {list.busy ? 'Loading…' : 'Load more'}
                </button>
              </li>
            )}
          </ul>
          <article class="mail-view card" aria-live="polite">
            {!email.data ? (
              <Loading />
            ) : (
              <>
                <h2>{email.data.subject}</h2>
                <p class="small">
                  <strong>From</strong> {email.data.from} · <strong>To</strong> {email.data.to.join(', ')} ·{' '}
                  <Link href={`/emails/${id}`}>Details and timeline</Link>
                </p>
                <EmailPreview html={email.data.html} title={email.data.subject} />
                {!email.data.html && email.data.text && <pre class="code">{email.data.text}</pre>}
                {raw.data && (
                  <details>
                    <summary>Headers</summary>
                    <HeadersTable headers={parseHeaders(raw.data)} />
                  </details>
                )}
              </>
            )}
          </article>
        </div>
      )}
    </>
  );
}
