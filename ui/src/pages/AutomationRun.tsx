// One automation run: its status, contact and times, and each step it reached as a timeline (type,
// status, when it started and ended, its output, e.g. the email it sent, and its error). A run
// still running is re-read every few seconds.
import { useEffect } from 'preact/hooks';
import { get } from '../api';
import { allPages } from '../audience';
import { STEP_WORDS, stepTitle, type ApiStep, type StepType } from '../automation-model';
import { Link } from '../components/Link';
import { Alert, Badge, ErrorRetry, KV, Loading, PageHead } from '../components/ui';
import { fmtDate } from '../format';
import { useLoad } from '../hooks';
import { runTone } from '../automation-model';

interface RunStep {
  key: string;
  type: StepType;
  status: string;
  output: Record<string, unknown> | null;
  error: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}
interface Run {
  id: string;
  status: string;
  email: string;
  contact_id: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  steps: RunStep[];
}

const POLL_MS = 3000;

/** Templates and segments by id, to name them instead of showing ids. */
async function loadNames() {
  const [templates, segments] = await Promise.all([
    allPages<{ id: string; name: string; alias: string | null }>(get, '/templates', 5),
    allPages<{ id: string; name: string }>(get, '/segments', 5),
  ]);
  return { templates, segments };
}

function Output({ output, names }: { output: Record<string, unknown>; names?: Awaited<ReturnType<typeof loadNames>> }) {
  const entries = Object.entries(output);
  if (!entries.length) return null;
  return (
    <dl class="kv step-output">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k.replace(/_/g, ' ')}</dt>
          <dd>
            {k === 'email_id' && typeof v === 'string' ? (
              <Link href={`/emails/${v}`} class="mono">
                {v}
              </Link>
            ) : k === 'segment_id' && typeof v === 'string' ? (
              <Link href={`/segments/${v}`}>{names?.segments.find((x) => x.id === v)?.name ?? v}</Link>
            ) : typeof v === 'object' && v !== null ? (
              <code class="wrap">{JSON.stringify(v)}</code>
            ) : (
              <span class="mono">{String(v)}</span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

export function AutomationRun({ id, runId }: { id: string; runId: string }) {
  const run = useLoad(
    () => get<Run>(`/automations/${encodeURIComponent(id)}/runs/${encodeURIComponent(runId)}`),
    [id, runId],
  );
  const auto = useLoad(() => get<{ name: string; steps: ApiStep[] }>(`/automations/${encodeURIComponent(id)}`), [id]);
  const names = useLoad(loadNames, []);
  const running = run.data?.status === 'running';
  useEffect(() => {
    if (!running) return;
    const t = setInterval(run.reload, POLL_MS);
    return () => clearInterval(t);
  }, [running]);
  const back = (
    <p>
      <Link href={`/automations/${id}`}>← {auto.data?.name ?? 'Automation'}</Link>
    </p>
  );
  if (run.error && !run.data)
    return (
      <>
        {back}
        <ErrorRetry error={run.error} status={run.errorStatus} retry={run.reload} />
      </>
    );
  if (!run.data) return <Loading />;
  const r = run.data;
  // A step by what it does, with names for its template or segment; its key only when the automation changed since.
  const stepName = (key: string) => {
    const def = auto.data?.steps.find((x) => x.key === key);
    return (def && names.data && stepTitle(def, names.data)) || key;
  };
  const steps = [...r.steps].sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  return (
    <>
      {back}
      <PageHead title={`Run ${r.id.slice(0, 8)}`} sub={auto.data?.name}>
        <Badge status={runTone(r.status)} text={r.status} />
      </PageHead>
      <section class="card">
        <KV
          items={[
            ['Run id', <span class="mono">{r.id}</span>],
            [
              'Contact',
              r.contact_id ? (
                <Link href={`/contacts/${r.contact_id}`}>{r.email}</Link>
              ) : (
                <span title="the contact was deleted">{r.email}</span>
              ),
            ],
            ['Started', fmtDate(r.started_at ?? r.created_at)],
            ['Ended', r.completed_at ? fmtDate(r.completed_at) : running ? 'still running' : '—'],
          ]}
        />
      </section>
      <section class="card" aria-labelledby="timeline-h">
        <h2 id="timeline-h">Steps</h2>
        <ol class="timeline" data-testid="timeline">
          {steps.map((s) => (
            <li key={s.key} class={`tl-item tl-${runTone(s.status)}`} data-testid="run-step" data-key={s.key}>
              <div class="tl-head">
                <strong>{STEP_WORDS[s.type] ?? s.type}</strong>{' '}
                <span class="muted small" title={`step ${s.key}`}>
                  {stepName(s.key)}
                </span>
                <Badge status={runTone(s.status)} text={s.status} />
              </div>
              <p class="small muted">
                {s.started_at ? <>started {fmtDate(s.started_at)}</> : <>reached {fmtDate(s.created_at)}</>}
                {s.completed_at && <> · ended {fmtDate(s.completed_at)}</>}
              </p>
              {s.output && <Output output={s.output} names={names.data} />}
              {s.error && <Alert>{s.error}</Alert>}
            </li>
          ))}
        </ol>
        {running && <p class="hint">Still running: this page refreshes every few seconds.</p>}
      </section>
    </>
  );
}
