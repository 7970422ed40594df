// Deliverability insights: one email's findings (its page) and the team's most common ones
// (Metrics), from GET /emails/:id/insights and GET /insights. Severity reads as a coloured word.
import { get } from '../api';
import { Link } from './Link';
import { ErrorRetry, Loading } from './ui';
import { pct } from '../format';
import { useLoad } from '../hooks';

export interface Finding {
  id: string;
  severity: 'error' | 'warning' | 'info';
  title: string;
  detail: string;
  fix: string;
}
interface TopFinding {
  id: string;
  severity: Finding['severity'];
  title: string;
  fix: string;
  why: string | null;
  emails: number;
  share: number;
  last_seen: string;
  example_email_id: string;
}

const TONE: Record<string, string> = { error: 'bad', warning: 'warn', info: 'info' };
/** The API's words with `names` in backticks shown as code. */
const Words = ({ text }: { text: string }) => (
  <>{text.split('`').map((part, i) => (i % 2 ? <code key={i}>{part}</code> : part))}</>
);

export const Severity = ({ s }: { s: string }) => <span class={`badge ${TONE[s] ?? 'muted'}`}>{s}</span>;

/** The findings of one email, errors first (the server's order). */
export function EmailInsights({ id }: { id: string }) {
  const r = useLoad(() => get<{ analyzed: boolean; data: Finding[] }>(`/emails/${id}/insights`), [id]);
  return (
    <section class="card" data-testid="insights" aria-labelledby="insights-h">
      <h2 id="insights-h">Insights</h2>
      {r.error ? (
        <ErrorRetry error={r.error} status={r.errorStatus} retry={r.reload} />
      ) : !r.data ? (
        <Loading />
      ) : !r.data.analyzed ? (
        <p class="muted">Insights were turned off when this email was sent (MAILROOM_INSIGHTS).</p>
      ) : !r.data.data.length ? (
        <p class="muted">Nothing found: no known deliverability problem in this email.</p>
      ) : (
        <ul class="findings">
          {r.data.data.map((f) => (
            <li key={f.id} data-finding={f.id}>
              <div class="finding-head">
                <Severity s={f.severity} />
                <strong>{f.title}</strong>
              </div>
              <p class="finding-detail">{f.detail}</p>
              <p class="finding-fix">
                <span class="muted">Fix:</span> <Words text={f.fix} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The team's most common findings over the last `days`, counted in emails. */
export function TopInsights({ days = 7 }: { days?: number }) {
  const r = useLoad(
    () => get<{ analyzed: number; sampled: boolean; data: TopFinding[] }>(`/insights?days=${days}`),
    [days],
  );
  return (
    <section class="card" data-testid="top-insights" aria-labelledby="top-insights-h">
      <h2 id="top-insights-h">Most common insights, last {days} days</h2>
      {r.error ? (
        <ErrorRetry error={r.error} status={r.errorStatus} retry={r.reload} />
      ) : !r.data ? (
        <Loading />
      ) : !r.data.data.length ? (
        <p class="muted">
          {r.data.analyzed ? `Nothing found in ${r.data.analyzed} emails.` : 'No emails analyzed in this range.'}
        </p>
      ) : (
        <>
          <p class="muted small">
            Out of {r.data.analyzed.toLocaleString()} emails analyzed
            {r.data.sampled ? ' (the newest of the range)' : ''}.
          </p>
          <div class="table-wrap">
            <table class="list stack">
              <thead>
                <tr>
                  <th scope="col">Insight</th>
                  <th scope="col">Emails</th>
                  <th scope="col">Example</th>
                </tr>
              </thead>
              <tbody>
                {r.data.data.map((f) => (
                  <tr key={f.id} data-finding={f.id}>
                    <td>
                      <div class="finding-head">
                        <Severity s={f.severity} />
                        <strong>{f.title}</strong>
                      </div>
                      {f.why && (
                        <div class="muted small">
                          <Words text={f.why} />
                        </div>
                      )}
                      <div class="small">
                        <span class="muted">Fix:</span> <Words text={f.fix} />
                      </div>
                    </td>
                    <td class="aside nowrap" data-testid="finding-count">
                      {f.emails.toLocaleString()} <span class="muted small">({pct(f.share)})</span>
                    </td>
                    <td class="aside">
                      <Link href={`/emails/${f.example_email_id}`}>Latest email</Link>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}
