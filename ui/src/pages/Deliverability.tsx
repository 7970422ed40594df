// A domain's Deliverability page: its health checks (GET /domains/:id/health, read live from DNS;
// in capture mode none, and the server's notice says why) with what to fix, and the DMARC
// aggregate reports received for it (GET /domains/:id/dmarc-reports): per day how much mail
// passed SPF, DKIM and DMARC, and which addresses sent as the domain; and the reputation guard's
// rates over time with its thresholds drawn (components/Reputation.tsx).
import { useMemo } from 'preact/hooks';
import { get } from '../api';
import { Chart, type Series } from '../components/Chart';
import { ReputationPanel } from '../components/Reputation';
import { Link } from '../components/Link';
import { Alert, Badge, Empty, ErrorRetry, Loading, PageHead } from '../components/ui';
import { fmtDate, num, pct } from '../format';
import { useLoad } from '../hooks';
import { canEdit, useSession } from '../session';
import './deliverability.css';

interface HealthCheck {
  id: string;
  status: 'pass' | 'warn' | 'fail';
  detail: string;
  fix: string | null;
}
// not_checked: capture mode, where the server reads no DNS and `notice` says why.
interface Health {
  name: string;
  status: 'pass' | 'warn' | 'fail' | 'not_checked';
  checked_at: string;
  notice: string | null;
  checks: HealthCheck[];
}
interface Day {
  date: string;
  reports: number;
  messages: number;
  spf_pass: number;
  dkim_pass: number;
  dmarc_pass: number;
  quarantined: number;
  rejected: number;
}
interface Source {
  source_ip: string;
  messages: number;
  spf_pass: number;
  dkim_pass: number;
  dmarc_pass: number;
  reporters: string[];
}
interface Report {
  id: string;
  org_name: string;
  report_id: string;
  date_begin: string;
  date_end: string;
  messages: number;
}
interface Summary {
  name: string;
  days: Day[];
  sources: Source[];
  reports: Report[];
}

const TITLES: Record<string, string> = {
  spf_return_path: 'SPF (return path)',
  spf: 'SPF (domain)',
  dkim: 'DKIM key',
  dkim_ed25519: 'DKIM key (Ed25519)',
  dmarc_policy: 'DMARC policy',
  dmarc_rua: 'DMARC reports (rua)',
  mta_sts: 'MTA-STS',
  tls_rpt: 'TLS-RPT',
  reverse_dns: 'Reverse DNS',
  blocklist_ips: 'Blocklists (addresses)',
  blocklist_domain: 'Blocklists (domain)',
};
// Badge tones come from format.ts's status words; "warn" reads as a warning there under the name "pending".
const badge = (s: Health['status']) =>
  s === 'not_checked' ? (
    <Badge status="not_checked" text="not checked" />
  ) : (
    <Badge status={s === 'warn' ? 'pending' : s} text={s} />
  );
const share = (part: number, whole: number) => (whole ? pct(part / whole) : '—');

function HealthSection({ id }: { id: string }) {
  const h = useLoad(() => get<Health>(`/domains/${id}/health`), [id]);
  return (
    <section class="card" data-testid="domain-health" aria-busy={h.loading}>
      <div class="section-head">
        <h2>Health {h.data && badge(h.data.status)}</h2>
        <button class="btn" onClick={h.reload} disabled={h.loading}>
          {h.loading ? 'Checking…' : 'Check again'}
        </button>
      </div>
      {h.data?.notice ? (
        <Alert kind="info">{h.data.notice}</Alert>
      ) : (
        <p class="muted small">
          Read now from DNS, as a receiving mail server sees it
          {h.data ? ` (checked ${fmtDate(h.data.checked_at)})` : ''}.
        </p>
      )}
      {h.error && !h.data ? (
        <ErrorRetry error={h.error} status={h.errorStatus} retry={h.reload} />
      ) : !h.data ? (
        <Loading />
      ) : !h.data.checks.length ? null : (
        <div class="table-wrap">
          <table class="list stack health">
            <thead>
              <tr>
                <th scope="col">Check</th>
                <th scope="col">Status</th>
                <th scope="col">Finding</th>
                <th scope="col">How to fix</th>
              </tr>
            </thead>
            <tbody>
              {h.data.checks.map((c) => (
                <tr key={c.id} data-check={c.id}>
                  <th scope="row">{TITLES[c.id] ?? c.id}</th>
                  <td>{badge(c.status)}</td>
                  <td>{c.detail}</td>
                  <td class="muted">{c.fix ?? ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function DmarcSection({ id, name }: { id: string; name: string }) {
  const s = useLoad(() => get<Summary>(`/domains/${id}/dmarc-reports?days=30`), [id]);
  const chart = useMemo(() => {
    const days = [...(s.data?.days ?? [])].reverse();
    const series: Series[] = [
      { label: 'DMARC pass', values: days.map((d) => d.dmarc_pass), color: '--ok' },
      { label: 'DMARC fail', values: days.map((d) => d.messages - d.dmarc_pass), color: '--bad' },
    ];
    return { x: days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000), series };
  }, [s.data]);
  return (
    <section class="card" data-testid="dmarc-reports">
      <h2>
        DMARC reports <span class="muted small">(last 30 days)</span>
      </h2>
      {s.error && !s.data ? (
        <ErrorRetry error={s.error} status={s.errorStatus} retry={s.reload} />
      ) : !s.data ? (
        <Loading />
      ) : !s.data.reports.length ? (
        <Empty title="No DMARC reports yet">
          <p>
            Receivers such as Gmail, Yahoo and Outlook send a daily report of the mail they saw from {name} to the
            address in the <code>rua=</code> tag of its DMARC record.
          </p>
          <p>
            Point it at an address on one of your receiving domains, e.g.{' '}
            <code>v=DMARC1; p=none; rua=mailto:dmarc@your-receiving-domain</code>, and the reports appear here within a
            day.
          </p>
        </Empty>
      ) : (
        <>
          {chart.x.length > 1 && (
            <Chart title="Messages per day by DMARC result" x={chart.x} series={chart.series} height={200} />
          )}
          <div class="table-wrap">
            <table class="list num" data-testid="dmarc-days">
              <caption class="sr-only">Per day</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Reports</th>
                  <th scope="col">Messages</th>
                  <th scope="col">SPF pass</th>
                  <th scope="col">DKIM pass</th>
                  <th scope="col">DMARC pass</th>
                  <th scope="col">Quarantined</th>
                  <th scope="col">Rejected</th>
                </tr>
              </thead>
              <tbody>
                {s.data.days.map((d) => (
                  <tr key={d.date}>
                    <th scope="row">{d.date}</th>
                    <td>{num(d.reports)}</td>
                    <td>{num(d.messages)}</td>
                    <td>{share(d.spf_pass, d.messages)}</td>
                    <td>{share(d.dkim_pass, d.messages)}</td>
                    <td>{share(d.dmarc_pass, d.messages)}</td>
                    <td>{num(d.quarantined)}</td>
                    <td>{num(d.rejected)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Sources sending as {name}</h3>
          {s.data.sources.some((x) => x.dmarc_pass < x.messages) && (
            <Alert kind="warn">
              Some sources fail DMARC: if they are yours (a CRM, a help desk), sign their mail with DKIM for {name}; if
              not, they are spoofing it, and p=quarantine or p=reject stops them.
            </Alert>
          )}
          <div class="table-wrap">
            <table class="list num" data-testid="dmarc-sources">
              <thead>
                <tr>
                  <th scope="col">Source address</th>
                  <th scope="col">Messages</th>
                  <th scope="col">SPF pass</th>
                  <th scope="col">DKIM pass</th>
                  <th scope="col">DMARC pass</th>
                  <th scope="col">Reported by</th>
                </tr>
              </thead>
              <tbody>
                {s.data.sources.map((x) => (
                  <tr key={x.source_ip} class={x.dmarc_pass < x.messages ? 'warn-row' : ''}>
                    <th scope="row" class="mono">
                      {x.source_ip}
                    </th>
                    <td>{num(x.messages)}</td>
                    <td>{share(x.spf_pass, x.messages)}</td>
                    <td>{share(x.dkim_pass, x.messages)}</td>
                    <td>{share(x.dmarc_pass, x.messages)}</td>
                    <td>{x.reporters.join(', ')}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <p class="muted small">
            {s.data.reports.length} report{s.data.reports.length === 1 ? '' : 's'} from{' '}
            {[...new Set(s.data.reports.map((r) => r.org_name))].join(', ')}.
          </p>
        </>
      )}
    </section>
  );
}

export function Deliverability({ id }: { id: string }) {
  const d = useLoad(() => get<{ name: string }>(`/domains/${id}`), [id]);
  const edit = canEdit(useSession().state);
  if (d.error && !d.data)
    return (
      <>
        <p>
          <Link href={`/domains/${id}`}>← Domain</Link>
        </p>
        <ErrorRetry error={d.error} status={d.errorStatus} retry={d.reload} />
      </>
    );
  if (!d.data) return <Loading />;
  return (
    <>
      <p>
        <Link href={`/domains/${id}`}>← {d.data.name}</Link>
      </p>
      <PageHead
        title={`Deliverability · ${d.data.name}`}
        sub="What receiving mail servers see of this domain, and what they report back."
      />
      <HealthSection id={id} />
      <DmarcSection id={id} name={d.data.name} />
      <ReputationPanel domainId={id} canResume={edit} />
    </>
  );
}
