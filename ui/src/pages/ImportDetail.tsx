// One contact import: polled every half second until it completes or fails, with a progress bar
// (rows read against the rows the browser counted at upload; indeterminate without that count),
// its counts, the rows that failed with their reasons, and why a failed import failed.
import { useEffect, useState } from 'preact/hooks';
import { get } from '../api';
import { Link } from '../components/Link';
import { Alert, Badge, KV, Loading, PageHead } from '../components/ui';
import { fmtDate, num } from '../format';
import { expectedRowsKey, type ContactImport } from './Imports';

const POLL_MS = 500;
const done = (i: ContactImport) => i.status === 'completed' || i.status === 'failed';

function useImport(id: string) {
  const [imp, setImp] = useState<ContactImport>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const tick = async () => {
      try {
        const i = await get<ContactImport>(`/contacts/imports/${encodeURIComponent(id)}`);
        if (!live) return;
        setImp(i);
        setError(undefined);
        if (!done(i)) timer = setTimeout(tick, POLL_MS);
      } catch (e) {
        if (!live) return;
        setError((e as Error).message);
        timer = setTimeout(tick, POLL_MS * 4); // a hiccup: try again, slower
      }
    };
    tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);
  return { imp, error };
}

/** Percent done (undefined = unknown) and the words beside the bar. */
function progressOf(i: ContactImport, expected: number | undefined): { pct: number | undefined; text: string } {
  const read = i.counts.total;
  if (i.status === 'completed') return { pct: 100, text: `Done: ${num(read)} row${read === 1 ? '' : 's'} read.` };
  if (i.status === 'failed') return { pct: 100, text: 'The import failed; no contact was imported.' };
  if (i.status === 'queued') return { pct: 0, text: 'Waiting for a worker to start…' };
  if (expected === undefined) return { pct: undefined, text: `${num(read)} rows read…` };
  if (read >= expected) return { pct: 99, text: `All ${num(read)} rows read; saving the contacts…` };
  return {
    pct: Math.min(99, Math.floor((read / Math.max(1, expected)) * 100)),
    text: `${num(read)} of about ${num(expected)} rows read…`,
  };
}

export function ImportDetail({ id }: { id: string }) {
  const { imp, error } = useImport(id);
  const back = (
    <p>
      <Link href="/contacts/imports">← Imports</Link>
    </p>
  );
  if (!imp)
    return (
      <>
        {back}
        {error ? <Alert>{error}</Alert> : <Loading />}
      </>
    );
  const stored = Number(sessionStorage.getItem(expectedRowsKey(id)) ?? NaN);
  const { pct, text } = progressOf(imp, Number.isFinite(stored) ? stored : undefined);
  const c = imp.counts;
  const rows = imp.failed_rows ?? [];
  return (
    <div class="audience">
      {back}
      <PageHead title="Import" sub={`Started ${fmtDate(imp.created_at)}`}>
        <Badge status={imp.status} />
      </PageHead>
      {error && <Alert kind="warn">{error} (retrying)</Alert>}
      <section class="card" aria-labelledby="progress-h">
        <h2 id="progress-h">Progress</h2>
        <div
          class={`progress${pct === undefined ? ' indeterminate' : ''}${imp.status === 'failed' ? ' bad' : ''}`}
          role="progressbar"
          aria-label="Import progress"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={pct}
          aria-valuetext={text}
        >
          <div style={pct === undefined ? undefined : { width: `${pct}%` }} />
        </div>
        <p class="muted" aria-live="polite" data-testid="import-progress-text">
          {text}
        </p>
        {imp.status === 'failed' && imp.error && <Alert>The import failed: {imp.error}</Alert>}
        <KV
          class="counts"
          items={[
            ['Rows', num(c.total)],
            ['Created', num(c.created)],
            ['Updated', num(c.updated)],
            ['Skipped', num(c.skipped)],
            ['Failed', num(c.failed)],
            ['Finished', imp.completed_at ? fmtDate(imp.completed_at) : '—'],
          ]}
        />
      </section>
      {rows.length > 0 && (
        <section class="card" aria-labelledby="failed-h">
          <h2 id="failed-h">Rows that failed</h2>
          <p class="hint">
            Row 1 is the header, as in a spreadsheet.
            {c.failed > rows.length ? ` The first ${rows.length} of ${num(c.failed)}.` : ''}
          </p>
          <div class="table-wrap">
            <table class="list" data-testid="import-failed-rows">
              <thead>
                <tr>
                  <th scope="col" class="right">
                    Row
                  </th>
                  <th scope="col">Email</th>
                  <th scope="col">Reason</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((r) => (
                  <tr key={r.row}>
                    <td class="right">{r.row}</td>
                    <td class="ellipsis">{r.email ?? <span class="muted">—</span>}</td>
                    <td class="desc">{r.reason}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </div>
  );
}
