// The reputation guard in the dashboard: a domain's panel (state and reason, Resume for a person
// who may edit, the rates of the last hour and 7 days, and charts of the hourly hard-bounce and
// complaint rates over 7 days with the warn and act thresholds drawn), and the app-wide banner
// naming the team's paused domains. Reads GET /domains/:id/reputation and GET /reputation/alerts.
import { useEffect, useState } from 'preact/hooks';
import { get, post } from '../api';
import { useAction, useLoad } from '../hooks';
import { fmtDate } from '../format';
import { Chart } from './Chart';
import { Link } from './Link';
import { Alert, ErrorRetry, Loading } from './ui';

interface Window {
  delivered: number;
  bounced: number;
  hard_bounced: number;
  complained: number;
  sample: number;
  bounce_rate: number | null;
  complaint_rate: number | null;
}
interface Point extends Window {
  hour: string;
}
export interface Reputation {
  domain_id: string;
  name: string;
  enabled: boolean;
  state: 'ok' | 'warning' | 'paused';
  reason: string | null;
  since: string | null;
  resumed_at: string | null;
  resumed_by: string | null;
  pauses: { list_mail: boolean; transactional: boolean };
  thresholds: {
    complaint_rate: { warn: number; act: number };
    bounce_rate: { warn: number; act: number };
    min_sample: number;
  };
  rates: { last_hour: Window; last_7_days: Window };
  series: Point[];
}
interface AlertItem {
  domain_id: string;
  name: string;
  state: 'warning' | 'paused';
  reason: string | null;
  since: string;
}

const pct = (v: number | null | undefined) => (v == null ? '—' : `${(v * 100).toFixed(2)}%`);

/** The guard's state as a sentence with what it stops, and Resume when paused. */
function GuardState({ r, canResume, onResumed }: { r: Reputation; canResume: boolean; onResumed: () => void }) {
  const resume = useAction(async () => {
    if (
      !confirm(
        `Resume list mail from ${r.name}? Broadcasts the guard paused resume and held automation emails are sent.`,
      )
    )
      return;
    await post(`/domains/${r.domain_id}/reputation/resume`);
    onResumed();
  });
  if (!r.enabled) return <Alert kind="info">The reputation guard is off (MAILROOM_REPUTATION_GUARD=false).</Alert>;
  if (r.state === 'paused') {
    return (
      <div class="alert bad reputation-banner" role="alert">
        <p>
          <strong>Paused by the reputation guard</strong> since {r.since ? fmtDate(r.since) : '—'}: {r.reason}.
        </p>
        <p class="small">
          Broadcasts and automation emails from {r.name} wait
          {r.pauses.transactional ? ', and so do API and SMTP sends' : '; transactional mail (API, SMTP) keeps flowing'}
          . Fix the cause (clean the list, check the content), then resume.
        </p>
        {canResume && (
          <button class="btn primary" onClick={() => resume.run()} disabled={resume.busy}>
            {resume.busy ? 'Resuming…' : 'Resume sending'}
          </button>
        )}
        {resume.error && <p>{resume.error}</p>}
      </div>
    );
  }
  if (r.state === 'warning')
    return (
      <Alert kind="warn">
        <strong>Reputation warning</strong>: {r.reason}. At the act threshold, broadcasts and automations from {r.name}{' '}
        pause.
      </Alert>
    );
  return (
    <p class="muted small">
      Reputation: <strong>ok</strong>
      {r.resumed_at ? ` · last resumed ${fmtDate(r.resumed_at)} by ${r.resumed_by}` : ''}.
    </p>
  );
}

/** Charts of the hourly rates (in %), with the thresholds as dashed lines. */
export function ReputationChart({ r }: { r: Reputation }) {
  const x = r.series.map((p) => Date.parse(p.hour) / 1000);
  const flat = (v: number) => r.series.map(() => v * 100);
  // An hour without mail draws as 0 (the API says null): a lone busy hour then shows as a spike, not an invisible point.
  const rate = (k: 'bounce_rate' | 'complaint_rate') => r.series.map((p) => (p[k] ?? 0) * 100);
  const f = (v: number) => `${v.toFixed(2)}%`;
  const t = r.thresholds;
  return (
    <div class="charts">
      <Chart
        title="Hard-bounce rate per hour (%)"
        x={x}
        series={[
          { label: 'Hard bounces', values: rate('bounce_rate'), color: '--c3', fmt: f },
          {
            label: `Warn ${pct(t.bounce_rate.warn)}`,
            values: flat(t.bounce_rate.warn),
            color: '--warn',
            fmt: f,
            dash: [6, 4],
          },
          {
            label: `Pause ${pct(t.bounce_rate.act)}`,
            values: flat(t.bounce_rate.act),
            color: '--bad',
            fmt: f,
            dash: [6, 4],
          },
        ]}
      />
      <Chart
        title="Complaint rate per hour (%)"
        x={x}
        series={[
          { label: 'Complaints', values: rate('complaint_rate'), color: '--c4', fmt: f },
          {
            label: `Warn ${pct(t.complaint_rate.warn)}`,
            values: flat(t.complaint_rate.warn),
            color: '--warn',
            fmt: f,
            dash: [6, 4],
          },
          {
            label: `Pause ${pct(t.complaint_rate.act)}`,
            values: flat(t.complaint_rate.act),
            color: '--bad',
            fmt: f,
            dash: [6, 4],
          },
        ]}
      />
    </div>
  );
}

/** The domain page's section: state, rates, charts. */
export function ReputationPanel({ domainId, canResume }: { domainId: string; canResume: boolean }) {
  const r = useLoad(() => get<Reputation>(`/domains/${domainId}/reputation`), [domainId]);
  if (r.error && !r.data)
    return (
      <section class="card">
        <h2>Reputation</h2>
        <ErrorRetry error={r.error} status={r.errorStatus} retry={r.reload} />
      </section>
    );
  if (!r.data)
    return (
      <section class="card">
        <h2>Reputation</h2>
        <Loading />
      </section>
    );
  const d = r.data;
  const row = (label: string, w: Window) => (
    <tr>
      <th scope="row">{label}</th>
      <td>{w.sample.toLocaleString()}</td>
      <td>{w.hard_bounced.toLocaleString()}</td>
      <td>{pct(w.bounce_rate)}</td>
      <td>{w.complained.toLocaleString()}</td>
      <td>{pct(w.complaint_rate)}</td>
    </tr>
  );
  return (
    <section class="card reputation" aria-labelledby="reputation-h">
      <h2 id="reputation-h">Reputation</h2>
      <GuardState r={d} canResume={canResume} onResumed={r.reload} />
      <div class="table-wrap">
        <table class="list num">
          <thead>
            <tr>
              <th scope="col">Window</th>
              <th scope="col">Delivered + bounced</th>
              <th scope="col">Hard bounces</th>
              <th scope="col">Bounce rate</th>
              <th scope="col">Complaints</th>
              <th scope="col">Complaint rate</th>
            </tr>
          </thead>
          <tbody>
            {row('Last hour', d.rates.last_hour)}
            {row('Last 7 days', d.rates.last_7_days)}
          </tbody>
        </table>
      </div>
      <p class="muted small">
        Warn at {pct(d.thresholds.bounce_rate.warn)} hard bounces or {pct(d.thresholds.complaint_rate.warn)} complaints;
        pause list mail at {pct(d.thresholds.bounce_rate.act)} or {pct(d.thresholds.complaint_rate.act)} (Gmail and
        Yahoo's limits), once a window holds {d.thresholds.min_sample} recipients.
      </p>
      <ReputationChart r={d} />
    </section>
  );
}

/** App-wide: the team's paused domains, each linking to its page (looked up again on every page change). */
export function ReputationBanner({ path }: { path: string }) {
  const [items, setItems] = useState<AlertItem[]>([]);
  useEffect(() => {
    let live = true;
    get<{ data: AlertItem[] }>('/reputation/alerts').then(
      (r) => {
        if (live) setItems(r.data.filter((a) => a.state === 'paused' && !path.startsWith(`/domains/${a.domain_id}`)));
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [path]);
  if (!items.length) return null;
  return (
    <div class="alert bad reputation-alert" role="alert">
      {items.map((a) => (
        <p key={a.domain_id}>
          <strong>{a.name}</strong> is paused by the reputation guard: broadcasts and automations from it wait.{' '}
          {a.reason}. <Link href={`/domains/${a.domain_id}`}>Review and resume</Link>
        </p>
      ))}
    </div>
  );
}
