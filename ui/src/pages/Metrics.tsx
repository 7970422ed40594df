// Metrics: sent, delivered, delayed, bounced (hard/soft), complained, failed, suppressed, opened,
// clicked and the rates over a chosen range, for all domains or one, as numbers, uPlot charts and
// a table; all from GET /emails/metrics (every count per recipient). Below them, the team's most
// common deliverability insights of the last 7 days (GET /insights).
import { get, qs, type List } from '../api';
import { Chart } from '../components/Chart';
import { Empty, ErrorRetry, Loading, PageHead } from '../components/ui';
import { Link } from '../components/Link';
import { TopInsights } from '../components/Insights';
import { num, pct } from '../format';
import { useLoad } from '../hooks';
import { setQuery } from '../router';

type Bag = Record<string, number>;
interface Metrics {
  totals: Bag;
  data: (Bag & { period: string })[];
  granularity: string;
  start_date: string;
  end_date: string;
}

const PRESETS: Record<string, { label: string; hours: number; granularity: string }> = {
  '24h': { label: 'Last 24 hours', hours: 24, granularity: 'hourly' },
  '7d': { label: 'Last 7 days', hours: 24 * 7, granularity: 'daily' },
  '30d': { label: 'Last 30 days', hours: 24 * 30, granularity: 'daily' },
  '90d': { label: 'Last 90 days', hours: 24 * 90, granularity: 'weekly' },
};

export function Metrics({ query }: { query: URLSearchParams }) {
  const range = query.get('range') ?? (query.get('from') ? 'custom' : '7d');
  const preset = PRESETS[range];
  const granularity = query.get('granularity') ?? preset?.granularity ?? 'daily';
  const end = preset
    ? new Date()
    : new Date(new Date(`${query.get('to') || new Date().toISOString().slice(0, 10)}T00:00:00`).getTime() + 86400_000);
  const start = preset ? new Date(end.getTime() - preset.hours * 3600_000) : new Date(`${query.get('from')}T00:00:00`);
  const domain = query.get('domain') ?? '';
  const q = qs({
    start_date: start.toISOString(),
    end_date: end.toISOString(),
    granularity,
    dimensions: 'period',
    domain_id: domain,
    timezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
  const m = useLoad(
    () => get<Metrics>(`/emails/metrics${q}`),
    [range, granularity, query.get('from'), query.get('to'), domain],
  );
  const domains = useLoad(() => get<List<{ id: string; name: string }>>('/domains'), []);
  const t = m.data?.totals;
  const x = m.data?.data.map((d) => new Date(d.period).getTime() / 1000) ?? [];
  const col = (k: string) => m.data?.data.map((d) => d[k] ?? 0) ?? [];
  const when = (p: string) =>
    new Date(p).toLocaleString(
      undefined,
      granularity === 'hourly'
        ? { month: 'short', day: 'numeric', hour: '2-digit' }
        : { year: 'numeric', month: 'short', day: 'numeric' },
    );
  return (
    <>
      <PageHead title="Metrics" sub="What happened to your team's mail over time." />
      <form
        class="filters"
        aria-label="Range"
        onSubmit={(e) => {
          e.preventDefault();
          const d = Object.fromEntries(new FormData(e.currentTarget as HTMLFormElement)) as Record<string, string>;
          setQuery({ range: 'custom', from: d.from, to: d.to, granularity: d.granularity });
        }}
      >
        <div class="segmented" role="group" aria-label="Preset ranges">
          {Object.entries(PRESETS).map(([k, p]) => (
            <button
              key={k}
              type="button"
              class="btn sm"
              aria-pressed={range === k}
              onClick={() => setQuery({ range: k, from: undefined, to: undefined, granularity: undefined })}
            >
              {p.label}
            </button>
          ))}
        </div>
        <label class="inline small">
          From <input type="date" name="from" defaultValue={query.get('from') ?? start.toISOString().slice(0, 10)} />
        </label>
        <label class="inline small">
          To <input type="date" name="to" defaultValue={query.get('to') ?? end.toISOString().slice(0, 10)} />
        </label>
        <select
          name="granularity"
          value={granularity}
          aria-label="Granularity"
          onChange={(e) => setQuery({ granularity: (e.target as HTMLSelectElement).value })}
        >
          <option value="hourly">Hourly</option>
          <option value="daily">Daily</option>
          <option value="weekly">Weekly</option>
          <option value="monthly">Monthly</option>
        </select>
        <button class="btn">Apply</button>
        <select
          aria-label="Domain"
          value={domain}
          onChange={(e) => setQuery({ domain: (e.target as HTMLSelectElement).value || undefined })}
        >
          <option value="">All domains</option>
          {domains.data?.data.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </form>
      {m.error && <ErrorRetry error={m.error} status={m.errorStatus} retry={m.reload} />}
      {!t ? (
        m.error ? null : (
          <Loading />
        )
      ) : (
        <>
          <div class="stats" data-testid="metrics-totals">
            <Stat label="Sent" value={num(t.sent)} sub="recipients accepted" />
            <Stat label="Delivered" value={num(t.delivered)} sub={`${pct(t.delivery_rate)} delivery rate`} />
            <Stat label="Delayed" value={num(t.delivery_delayed)} sub="delivery attempts deferred" />
            <Stat
              label="Bounced"
              value={num(t.bounced)}
              sub={`${num(t.bounced_permanent)} hard · ${num(t.bounced_transient)} soft · ${pct(t.bounce_rate)}`}
              tone={t.bounce_rate > 0.04 ? 'bad' : undefined}
            />
            <Stat
              label="Complained"
              value={num(t.complained)}
              sub={`${pct(t.complaint_rate)} complaint rate`}
              tone={t.complaint_rate > 0.001 ? 'bad' : undefined}
            />
            <Stat label="Failed" value={num(t.failed)} sub="could not be sent" tone={t.failed ? 'bad' : undefined} />
            <Stat label="Suppressed" value={num(t.suppressed)} sub="skipped: on the suppression list" />
            <Stat label="Opened" value={num(t.unique_opened)} sub={`${pct(t.open_rate)} open rate`} />
            <Stat label="Clicked" value={num(t.unique_clicked)} sub={`${pct(t.click_rate)} click rate`} />
          </div>
          {!t.sent && !t.delivered ? (
            <Empty title="No mail in this range">
              Pick a longer range, or <Link href="/emails">send your first email</Link>.
            </Empty>
          ) : (
            <>
              <div class="charts">
                <Chart
                  title="Delivery"
                  x={x}
                  series={[
                    { label: 'Sent', values: col('sent'), color: '--c1' },
                    { label: 'Delivered', values: col('delivered'), color: '--c2' },
                    { label: 'Bounced', values: col('bounced'), color: '--c3' },
                    { label: 'Complained', values: col('complained'), color: '--c4' },
                  ]}
                />
                <Chart
                  title="Engagement"
                  x={x}
                  series={[
                    { label: 'Opened', values: col('unique_opened'), color: '--c5' },
                    { label: 'Clicked', values: col('unique_clicked'), color: '--c6' },
                  ]}
                />
              </div>
              <details class="card">
                <summary>Numbers per period</summary>
                <div class="table-wrap">
                  <table class="list num">
                    <thead>
                      <tr>
                        <th scope="col">Period</th>
                        <th scope="col">Sent</th>
                        <th scope="col">Delivered</th>
                        <th scope="col">Bounced (hard/soft)</th>
                        <th scope="col">Complained</th>
                        <th scope="col">Failed</th>
                        <th scope="col">Suppressed</th>
                        <th scope="col">Opened</th>
                        <th scope="col">Clicked</th>
                      </tr>
                    </thead>
                    <tbody>
                      {m.data!.data.map((d) => (
                        <tr key={d.period}>
                          <th scope="row">{when(d.period)}</th>
                          <td>{num(d.sent)}</td>
                          <td>{num(d.delivered)}</td>
                          <td>
                            {num(d.bounced)} ({num(d.bounced_permanent)}/{num(d.bounced_transient)})
                          </td>
                          <td>{num(d.complained)}</td>
                          <td>{num(d.failed)}</td>
                          <td>{num(d.suppressed)}</td>
                          <td>{num(d.unique_opened)}</td>
                          <td>{num(d.unique_clicked)}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </div>
              </details>
            </>
          )}
        </>
      )}
      <TopInsights days={7} />
    </>
  );
}

function Stat({ label, value, sub, tone }: { label: string; value: string; sub?: string; tone?: 'bad' }) {
  return (
    <div class={`stat${tone ? ` ${tone}` : ''}`}>
      <div class="stat-label">{label}</div>
      <div class="stat-value">{value}</div>
      {sub && <div class="stat-sub">{sub}</div>}
    </div>
  );
}
