// Domains: the list with status, adding one (then its DNS records to publish), and a domain's page
// with every record as a copyable row with its own status, Verify, region, tracking and TLS. In
// capture mode the API calls records "verified" (Resend's words; the domain can send) though no
// DNS was read: this page says "not checked" and why instead, as the Deliverability page does.
import { useState } from 'preact/hooks';
import { del, get, patch, post, type List } from '../api';
import { Alert, Badge, Copy, Empty, ErrorRetry, KV, Loading, PageHead } from '../components/ui';
import { Link } from '../components/Link';
import { ReputationPanel } from '../components/Reputation';
import { ago, fmtDate } from '../format';
import { useAction, useLoad } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

interface DomainItem {
  id: string;
  name: string;
  status: string;
  region: string;
  created_at: string;
}
interface DnsRecord {
  record: string;
  name: string;
  value: string;
  type: string;
  ttl: string;
  status: string;
  priority?: number;
}
interface Domain extends DomainItem {
  open_tracking: boolean;
  click_tracking: boolean;
  tls: string;
  records: DnsRecord[];
  custom_return_path: string;
  dkim_ed25519?: boolean;
  capabilities: { sending: string; receiving: string };
}

const REGIONS = ['us-east-1', 'eu-west-1', 'sa-east-1', 'ap-northeast-1'];

function AddDomain({ onAdded }: { onAdded: (id: string) => void }) {
  const a = useAction(async (d: Record<string, string>) => {
    const r = await post<{ id: string }>('/domains', {
      name: d.name.trim(),
      region: d.region,
      ...(d.return_path?.trim() ? { custom_return_path: d.return_path.trim() } : {}),
    });
    onAdded(r.id);
  });
  return (
    <form
      class="inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        a.run(Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<string, string>);
      }}
    >
      <label class="sr-only" for="domain-name">
        Domain name
      </label>
      <input id="domain-name" name="name" required placeholder="mail.example.com" class="grow" />
      <label class="sr-only" for="domain-region">
        Region
      </label>
      <select id="domain-region" name="region">
        {REGIONS.map((r) => (
          <option key={r}>{r}</option>
        ))}
      </select>
      <label class="field-inline small">
        Return-path subdomain{' '}
        <input
          name="return_path"
          placeholder="send"
          size={8}
          pattern="[A-Za-z0-9-]{1,63}"
          title="Letters, digits and hyphens: bounces come back to this subdomain"
        />
      </label>
      <button class="btn primary" disabled={a.busy}>
        Add domain
      </button>
      {a.error && <Alert>{a.error}</Alert>}
    </form>
  );
}

interface ClaimItem {
  side: 'claimant' | 'holder';
  id: string;
  name: string;
  status: string;
  created_at?: string;
  verified_at?: string | null;
  completed_at?: string | null;
  domain_id?: string;
  record?: { type: string; name: string; value: string };
  blocked_reason?: string | null;
  failure_reason?: string | null;
}

/** What a claim means for this team, in a sentence (GET /domains/claims). */
function claimText(c: ClaimItem): string {
  if (c.side === 'holder') {
    if (c.status === 'completed')
      return `${c.name} moved to another team ${c.completed_at ? fmtDate(c.completed_at) : ''}: it proved control of the domain with a DNS record (a domain claim).`;
    return `Another team proved control of ${c.name} with a DNS record ${c.verified_at ? fmtDate(c.verified_at) : ''}: the domain moves to it when its grace period ends.`;
  }
  const why = c.blocked_reason
    ? ` (${c.blocked_reason.replace(/_/g, ' ')})`
    : c.failure_reason
      ? `: ${c.failure_reason}`
      : '';
  return `Your claim for ${c.name}: ${c.status}${why}.`;
}

function Claims() {
  const claims = useLoad(() => get<List<ClaimItem>>('/domains/claims'), []);
  const shown = (claims.data?.data ?? []).filter(
    (c) => c.side === 'holder' || ['pending', 'failed', 'verified', 'blocked', 'completed'].includes(c.status),
  );
  if (!shown.length) return null;
  return (
    <section class="claims" aria-label="Domain claims">
      {shown.map((c) => (
        <Alert key={c.id} kind={c.side === 'holder' ? 'warn' : c.status === 'completed' ? 'ok' : 'info'}>
          {claimText(c)}
          {c.side === 'claimant' && c.record && !['completed'].includes(c.status) && (
            <>
              {' '}
              Publish TXT <code>{c.record.name}</code> <Copy text={c.record.value} />, then verify the claim.
            </>
          )}
        </Alert>
      ))}
    </section>
  );
}

export function Domains() {
  const { state } = useSession();
  const list = useLoad(() => get<List<DomainItem>>('/domains'), []);
  const open = (id: string) => navigate(`/domains/${id}`);
  return (
    <>
      <PageHead title="Domains" sub="The domains you send from. Each needs a few DNS records before it can send." />
      {canEdit(state) && <AddDomain onAdded={open} />}
      <Claims />
      {list.error && <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />}
      {!list.data ? (
        list.error ? null : (
          <Loading />
        )
      ) : list.data.data.length === 0 ? (
        <Empty title="Add a domain">
          <p>
            Type the domain you send from above (a subdomain such as <code>mail.example.com</code> keeps your main
            domain's reputation apart). Mailroom then shows the records to publish at your DNS provider:
          </p>
          <ul>
            <li>
              <strong>DKIM</strong>: a TXT record holding the public key that signs your mail.
            </li>
            <li>
              <strong>SPF</strong>: an MX and a TXT record on the bounce subdomain (<code>send.</code>), so bounces come
              back here.
            </li>
            <li>
              <strong>DMARC</strong> (recommended): a TXT record at <code>_dmarc</code>.
            </li>
          </ul>
          <p>
            Then press <em>Verify</em>; Mailroom also re-checks on its own.
          </p>
        </Empty>
      ) : (
        <div class="table-wrap">
          <table class="list">
            <thead>
              <tr>
                <th scope="col">Domain</th>
                <th scope="col">Status</th>
                <th scope="col">Region</th>
                <th scope="col">Added</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((d) => (
                <tr key={d.id}>
                  <td>
                    <Link href={`/domains/${d.id}`}>{d.name}</Link>
                  </td>
                  <td>
                    <Badge status={d.status} />
                  </td>
                  <td>{d.region}</td>
                  <td title={fmtDate(d.created_at)}>{ago(d.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

export function DomainDetail({ id }: { id: string }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const d = useLoad(() => get<Domain>(`/domains/${id}`), [id]);
  const [note, setNote] = useState<string>();
  const capture = state.delivery_mode === 'capture';
  const verify = useAction(async () => {
    await post(`/domains/${id}/verify`);
    setNote(
      capture
        ? 'Capture mode: the domain can send at once; its records are not checked in DNS.'
        : 'Verification started: records are checked now and again over the next hours.',
    );
    setTimeout(d.reload, 1000);
    d.reload();
  });
  const save = useAction(async (body: object) => {
    await patch(`/domains/${id}`, body);
    d.reload();
  });
  const remove = useAction(async () => {
    if (!confirm(`Delete ${d.data?.name}? Mail from it will be refused.`)) return;
    await del(`/domains/${id}`);
    navigate('/domains');
  });
  if (d.error && !d.data)
    return (
      <>
        <p>
          <Link href="/domains">← Domains</Link>
        </p>
        <ErrorRetry error={d.error} status={d.errorStatus} retry={d.reload} />
      </>
    );
  if (!d.data) return <Loading />;
  const dom = d.data;
  const fqdn = (name: string) => (name === '@' || !name ? dom.name : `${name}.${dom.name}`);
  return (
    <>
      <p>
        <Link href="/domains">← Domains</Link>
      </p>
      <PageHead
        title={dom.name}
        sub={
          <>
            Region {dom.region} · added {fmtDate(dom.created_at)}
          </>
        }
      >
        <Badge status={dom.status} />
        <Link class="btn" href={`/domains/${id}/deliverability`}>
          Deliverability
        </Link>
        {edit && (
          <button class="btn primary" onClick={() => verify.run()} disabled={verify.busy}>
            {verify.busy ? 'Verifying…' : 'Verify'}
          </button>
        )}
      </PageHead>
      {note && <Alert kind="info">{note}</Alert>}
      {verify.error && <Alert>{verify.error}</Alert>}
      <section class="card">
        <h2>DNS records</h2>
        <p class="muted small">
          Publish these at your DNS provider. Names are relative to {dom.name}; each row shows its own status.
        </p>
        {capture && (
          <Alert kind="info">
            Capture mode: these records are not checked in DNS, and the domain can send because nothing leaves this
            machine. Publish them before switching <code>MAILROOM_DELIVERY_MODE</code> to <code>mx</code> or{' '}
            <code>relay</code>; they are checked then.
          </Alert>
        )}
        <div class="table-wrap">
          <table class="list records">
            <thead>
              <tr>
                <th scope="col">Record</th>
                <th scope="col">Type</th>
                <th scope="col">Name</th>
                <th scope="col">Value</th>
                <th scope="col">Priority</th>
                <th scope="col">TTL</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {dom.records.map((r, i) => (
                <tr key={i}>
                  <td>{r.record}</td>
                  <td>{r.type}</td>
                  <td>
                    <span class="mono">{r.name}</span> <Copy text={fqdn(r.name)} label="Copy" small />
                  </td>
                  <td class="value">
                    <span class="mono clip" title={r.value}>
                      {r.value}
                    </span>{' '}
                    <Copy text={r.value} label="Copy" small />
                  </td>
                  <td>{r.priority ?? ''}</td>
                  <td>{r.ttl}</td>
                  <td>
                    {capture ? (
                      <span title="Capture mode: this record is not checked in DNS">
                        <Badge status="not_checked" text="not checked" />
                      </span>
                    ) : (
                      <Badge status={r.status} />
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {dom.capabilities.sending === 'enabled' && <ReputationPanel domainId={dom.id} canResume={edit} />}
      <section class="card">
        <h2>Settings</h2>
        <KV
          items={[
            ['Region', dom.region],
            ['Return path', `${dom.custom_return_path}.${dom.name}`],
            ['Sending', dom.capabilities.sending],
          ]}
        />
        <fieldset disabled={!edit || save.busy} class="settings">
          <legend class="sr-only">Receiving, signing, tracking and TLS</legend>
          <label class="check">
            <input
              type="checkbox"
              checked={dom.open_tracking}
              onChange={(e) => save.run({ open_tracking: (e.target as HTMLInputElement).checked })}
            />{' '}
            Open tracking <span class="muted small">(a pixel in HTML mail)</span>
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={dom.click_tracking}
              onChange={(e) => save.run({ click_tracking: (e.target as HTMLInputElement).checked })}
            />{' '}
            Click tracking <span class="muted small">(links go through this server)</span>
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={dom.capabilities.receiving === 'enabled'}
              onChange={(e) =>
                save.run({
                  capabilities: { receiving: (e.target as HTMLInputElement).checked ? 'enabled' : 'disabled' },
                })
              }
            />{' '}
            Receive mail at {dom.name}{' '}
            <span class="muted small">(adds an MX record to publish; received mail shows under Receiving)</span>
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={Boolean(dom.dkim_ed25519)}
              onChange={(e) => save.run({ dkim_ed25519: (e.target as HTMLInputElement).checked })}
            />{' '}
            Also sign with Ed25519{' '}
            <span class="muted small">(a second DKIM key, RFC 8463; signs once its record verifies)</span>
          </label>
          <label class="field-inline">
            TLS
            <select value={dom.tls} onChange={(e) => save.run({ tls: (e.target as HTMLSelectElement).value })}>
              <option value="opportunistic">Opportunistic (use TLS when offered)</option>
              <option value="enforced">Enforced (never send without TLS)</option>
            </select>
          </label>
        </fieldset>
        {save.error && <Alert>{save.error}</Alert>}
      </section>
      {edit && (
        <section class="card danger">
          <h2>Delete domain</h2>
          <p class="muted">Its DKIM key is deleted; sending from it stops.</p>
          <button class="btn bad" onClick={() => remove.run()}>
            Delete {dom.name}
          </button>
        </section>
      )}
    </>
  );
}
