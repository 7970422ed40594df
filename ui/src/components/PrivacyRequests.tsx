// Data-subject requests (POST/GET /privacy/erasures and /privacy/exports): start an export (JSON,
// or a zip with the attachments) or an erasure (after a confirmation naming the address), and the
// team's requests with state, progress and counts per kind of data; a finished export downloads
// through its signed, expiring link. Lists refresh while a request is still running. The server
// never answers the address of a request (only its keyed hash is kept): the page shows it for
// the requests started from this tab.
import { useEffect, useState } from 'preact/hooks';
import { get, post, type List } from '../api';
import { ago, fmtDate, label } from '../format';
import { useAction, useLoad } from '../hooks';
import { Alert, Badge, ErrorRetry, Loading } from './ui';

interface Request {
  object: 'privacy_erasure' | 'privacy_export';
  id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  include_attachments?: boolean;
  counts: Record<string, number>;
  error: string | null;
  created_at: string;
  completed_at: string | null;
  download_url?: string | null;
  expires_at?: string | null;
}

/** The signed link on this origin: the dashboard is served by the API it calls, whatever MAILROOM_PUBLIC_URL says. */
const sameOrigin = (url: string) => {
  const u = new URL(url, location.href);
  return u.pathname + u.search;
};

const running = (r: Request) => r.status === 'queued' || r.status === 'in_progress';

function Counts({ counts }: { counts: Record<string, number> }) {
  const entries = Object.entries(counts).filter(([, n]) => n > 0);
  if (!entries.length) return <span class="muted">none yet</span>;
  return (
    <span class="small">
      {entries.map(([k, n], i) => (
        <span key={k}>
          {i > 0 && ', '}
          {label(k)}: {n.toLocaleString()}
        </span>
      ))}
    </span>
  );
}

function RequestTable({
  title,
  list,
  addresses,
}: {
  title: string;
  list: Request[];
  addresses: Record<string, string>;
}) {
  if (!list.length) return <p class="muted">No {title.toLowerCase()} yet.</p>;
  return (
    <div class="table-wrap">
      <table class="list" aria-label={title}>
        <thead>
          <tr>
            <th scope="col">Requested</th>
            <th scope="col">State</th>
            <th scope="col">Counts</th>
            <th scope="col">
              <span class="sr-only">Download</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.map((r) => (
            <tr key={r.id} data-id={r.id}>
              <td>
                <span title={fmtDate(r.created_at)}>{ago(r.created_at)}</span>
                {addresses[r.id] && <div class="small">{addresses[r.id]}</div>}
                <div class="muted small mono">{r.id}</div>
              </td>
              <td>
                <Badge status={r.status === 'in_progress' ? 'running' : r.status} text={label(r.status)} />
                {r.error && <div class="small bad">{r.error}</div>}
                {r.include_attachments && <div class="muted small">with attachments (zip)</div>}
              </td>
              <td>
                <Counts counts={r.counts} />
              </td>
              <td class="right">
                {r.download_url && (
                  <a class="btn sm" href={sameOrigin(r.download_url)} download aria-label={`Download export ${r.id}`}>
                    Download
                  </a>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function PrivacyRequests({ edit }: { edit: boolean }) {
  const exports = useLoad(() => get<List<Request>>('/privacy/exports'), []);
  const erasures = useLoad(() => get<List<Request>>('/privacy/erasures'), []);
  const [addresses, setAddresses] = useState<Record<string, string>>({});
  const [confirming, setConfirming] = useState<string>();
  const busy = [...(exports.data?.data ?? []), ...(erasures.data?.data ?? [])].some(running);
  useEffect(() => {
    if (!busy) return;
    const timer = setInterval(() => {
      exports.reload();
      erasures.reload();
    }, 1000);
    return () => clearInterval(timer);
  }, [busy]);
  const startExport = useAction(async (form: HTMLFormElement) => {
    const d = new FormData(form);
    const email = String(d.get('email') ?? '');
    const r = await post<{ id: string }>('/privacy/exports', {
      email,
      ...(d.get('attachments') ? { include_attachments: true } : {}),
    });
    setAddresses((a) => ({ ...a, [r.id]: email }));
    form.reset();
    exports.reload();
  });
  const erase = useAction(async (email: string) => {
    const r = await post<{ id: string }>('/privacy/erasures', { email });
    setAddresses((a) => ({ ...a, [r.id]: email }));
    setConfirming(undefined);
    erasures.reload();
  });
  return (
    <>
      {edit && (
        <section class="card" aria-labelledby="export-h">
          <h2 id="export-h">Export an address</h2>
          <p class="muted small">
            Everything this team holds about one address, as one JSON document (or a zip with the attachments of its
            sent and received emails). The download link expires.
          </p>
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              startExport.run(e.currentTarget as HTMLFormElement);
            }}
          >
            <label class="field-inline grow">
              Address <input name="email" type="email" required maxLength={320} placeholder="someone@example.com" />
            </label>
            <label class="field-inline">
              <input type="checkbox" name="attachments" value="1" /> Include attachments (zip)
            </label>
            <button class="btn primary" disabled={startExport.busy}>
              Start export
            </button>
            {startExport.error && <Alert>{startExport.error}</Alert>}
          </form>
        </section>
      )}
      {edit && (
        <section class="card danger" aria-labelledby="erase-h">
          <h2 id="erase-h">Erase an address</h2>
          <p class="muted small">
            Removes or irreversibly redacts every trace of the address in this team. Only a keyed hash stays, so it is
            never mailed again. This cannot be undone.
          </p>
          <form
            class="inline-form"
            onSubmit={(e) => {
              e.preventDefault();
              const email = String(new FormData(e.currentTarget as HTMLFormElement).get('email') ?? '').trim();
              if (email) setConfirming(email);
            }}
          >
            <label class="field-inline grow">
              Address{' '}
              <input
                name="email"
                type="email"
                required
                maxLength={320}
                placeholder="someone@example.com"
                onInput={() => setConfirming(undefined)}
              />
            </label>
            <button class="btn bad">Erase…</button>
          </form>
          {confirming && (
            <div class="card highlight" role="alertdialog" aria-labelledby="erase-q" data-testid="erase-confirm">
              <h3 id="erase-q">Erase {confirming} from this team?</h3>
              <p>
                The contact, the emails sent only to {confirming}, their events, received mail, logs and webhook
                payloads that name it are removed or redacted for good.
              </p>
              <div class="row">
                <button class="btn bad" disabled={erase.busy} onClick={() => erase.run(confirming)}>
                  Erase {confirming}
                </button>
                <button class="btn ghost" onClick={() => setConfirming(undefined)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
          {erase.error && <Alert>{erase.error}</Alert>}
        </section>
      )}
      <section class="card" aria-labelledby="requests-h">
        <h2 id="requests-h">Requests</h2>
        <h3>Exports</h3>
        {exports.error && <ErrorRetry error={exports.error} status={exports.errorStatus} retry={exports.reload} />}
        {!exports.data ? (
          exports.error ? null : (
            <Loading />
          )
        ) : (
          <RequestTable title="Exports" list={exports.data.data} addresses={addresses} />
        )}
        <h3>Erasures</h3>
        {erasures.error && <ErrorRetry error={erasures.error} status={erasures.errorStatus} retry={erasures.reload} />}
        {!erasures.data ? (
          erasures.error ? null : (
            <Loading />
          )
        ) : (
          <RequestTable title="Erasures" list={erasures.data.data} addresses={addresses} />
        )}
      </section>
    </>
  );
}
