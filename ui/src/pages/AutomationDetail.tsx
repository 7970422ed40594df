// One automation's page: its name, on/off, the builder (saved whole as
// the steps and connections the API takes; a 422 appears on the step it names), stop, duplicate,
// delete, the saved graph as a canvas with each step's counts (AutomationCanvas), the graph as JSON, and its runs
// with their contacts' addresses. `/automations/new` is the same page before the first save.
import { useEffect, useState } from 'preact/hooks';
import { del, get, patch, post, ApiError } from '../api';
import { allPages } from '../audience';
import {
  fromGraph,
  newNode,
  runTone,
  stepError,
  stepTitle,
  toGraph,
  type ApiConnection,
  type ApiStep,
  type Graph,
  type Node,
  type Refs,
} from '../automation-model';
import { AutomationBuilder } from '../components/AutomationBuilder';
import { AutomationCanvas, type StepCounts } from '../components/AutomationCanvas';
import { Link } from '../components/Link';
import { AgoCell, Alert, Badge, Code, ErrorRetry, KV, Loading, PageHead, PagedTable } from '../components/ui';
import { fmtDate } from '../format';
import { useAction, useLoad, usePaged, useVisibleInterval } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';
import type { Item } from './Automations';

interface Automation extends Item {
  steps: ApiStep[];
  connections: ApiConnection[];
}
interface Run {
  id: string;
  status: string;
  email: string;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
}

async function loadRefs(): Promise<Refs> {
  const [templates, defs, recent, segments, props] = await Promise.all([
    allPages<{ id: string; name: string; alias: string | null; status: string }>(get, '/templates', 5),
    allPages<{ id: string; name: string }>(get, '/events', 5),
    get<{ data: { name: string }[] }>('/custom-events/names'),
    allPages<{ id: string; name: string }>(get, '/segments', 5),
    get<{ data: { key: string }[] }>('/contact-properties'),
  ]);
  const names = [...new Set([...defs.map((d) => d.name), ...recent.data.map((r) => r.name)])].sort();
  return {
    templates: templates.filter((t) => t.status === 'published'),
    eventNames: names,
    segments,
    properties: props.data.map((p) => p.key),
  };
}

const blank = (): Node[] => [newNode('trigger', 'trigger')];

/**
 * On and off. Turning on puts the automation live (every trigger event starts a run that may send
 * email), so it is its own step, apart from Save: only for the graph as saved (the server checked
 * it on save), and only after a confirmation that says what will happen. Turning off stops new runs
 * at once, which is always safe.
 */
function Enabling({
  name,
  on,
  trigger,
  dirty,
  confirming,
  setConfirming,
  busy,
  onToggle,
}: {
  name: string;
  on: boolean;
  trigger: string;
  dirty: boolean;
  confirming: boolean;
  setConfirming: (v: boolean) => void;
  busy: boolean;
  onToggle: (on: boolean) => void;
}) {
  if (on)
    return (
      <div class="actions" data-testid="enabling">
        <span>On: each {trigger || 'trigger'} event starts a run.</span>
        <button type="button" class="btn" onClick={() => onToggle(false)} disabled={busy}>
          Turn off
        </button>
      </div>
    );
  if (dirty)
    return (
      <p class="hint" data-testid="enabling">
        Off. Save the changes first: only a saved automation can be turned on.
      </p>
    );
  if (!confirming)
    return (
      <div class="actions" data-testid="enabling">
        <span>Off: no runs start.</span>
        <button type="button" class="btn" onClick={() => setConfirming(true)}>
          Turn on…
        </button>
      </div>
    );
  return (
    <div class="alert warn" role="group" aria-label="Turn on the automation" data-testid="enabling">
      <p>
        Turn on <strong>{name}</strong>? From now on every <code>{trigger}</code> event starts a run for its contact,
        and the saved steps run as they are, email included.
      </p>
      <div class="actions">
        <button type="button" class="btn primary" onClick={() => onToggle(true)} disabled={busy}>
          Turn on {name}
        </button>
        <button type="button" class="btn ghost" onClick={() => setConfirming(false)}>
          Cancel
        </button>
      </div>
    </div>
  );
}

export function AutomationDetail({ id }: { id: string }) {
  const { state } = useSession();
  const edit = canEdit(state);
  const isNew = id === 'new';
  const a = useLoad(
    () => (isNew ? Promise.resolve(undefined) : get<Automation>(`/automations/${encodeURIComponent(id)}`)),
    [id],
  );
  const refs = useLoad(loadRefs, []);
  const [name, setName] = useState('');
  const [tree, setTree] = useState<Node[] | null>();
  const [json, setJson] = useState<string>();
  const [, setTick] = useState(0);
  const [errors, setErrors] = useState(new Map<string, string>());
  const [saved, setSaved] = useState<string>();
  useEffect(() => {
    if (isNew) {
      setTree(blank());
      setName('');
      return;
    }
    if (!a.data) return;
    setName(a.data.name);
    const t = fromGraph(a.data);
    setTree(t);
    setJson(t ? undefined : JSON.stringify({ steps: a.data.steps, connections: a.data.connections }, null, 2));
    // Compared as the builder would send it, so an API-made graph in another order is not "changed".
    setSaved(
      JSON.stringify({
        name: a.data.name,
        g: t ? toGraph(fromGraph(a.data)!) : { steps: a.data.steps, connections: a.data.connections },
      }),
    );
  }, [a.data, id]);
  const graph = (): Graph => (json !== undefined ? JSON.parse(json) : toGraph(tree ?? []));
  const save = useAction(async () => {
    setErrors(new Map());
    let g: Graph;
    try {
      g = graph();
    } catch (e) {
      throw new Error(`The JSON is not valid: ${(e as Error).message}`);
    }
    try {
      if (isNew) {
        const r = await post<{ id: string }>('/automations', { name, steps: g.steps, connections: g.connections });
        navigate(`/automations/${r.id}`, { replace: true });
      } else {
        await patch(`/automations/${a.data!.id}`, { name, steps: g.steps, connections: g.connections });
        a.reload();
      }
    } catch (e) {
      const raw = e instanceof ApiError ? e.serverMessage : undefined;
      const placed = raw ? stepError(raw, g) : undefined;
      if (placed?.key && json === undefined) {
        setErrors(new Map([[placed.key, placed.text]]));
        throw new Error(`Not saved: step ${placed.key} needs a change (shown on the step).`);
      }
      throw e;
    }
  });
  const [confirming, setConfirming] = useState(false);
  const toggle = useAction(async (on: boolean) => {
    await patch(`/automations/${a.data!.id}`, { status: on ? 'enabled' : 'disabled' });
    setConfirming(false);
    a.reload();
  });
  const stop = useAction(async () => {
    if (confirm('Turn this automation off and cancel its running runs?')) {
      await post(`/automations/${a.data!.id}/stop`);
      a.reload();
    }
  });
  const duplicate = useAction(async () => {
    const r = await post<{ id: string }>(`/automations/${a.data!.id}/duplicate`);
    navigate(`/automations/${r.id}`);
  });
  const remove = useAction(async () => {
    if (confirm('Delete this automation and its runs?')) {
      await del(`/automations/${a.data!.id}`);
      navigate('/automations');
    }
  });
  const back = (
    <p>
      <Link href="/automations">← Automations</Link>
    </p>
  );
  if (a.error)
    return (
      <>
        {back}
        <ErrorRetry error={a.error} status={a.errorStatus} retry={a.reload} />
      </>
    );
  if (refs.error)
    return (
      <>
        {back}
        <ErrorRetry error={refs.error} status={refs.errorStatus} retry={refs.reload} />
      </>
    );
  if ((!isNew && !a.data) || !refs.data || tree === undefined) return <Loading />;
  let current = '';
  try {
    current = JSON.stringify({ name, g: graph() });
  } catch {
    /* invalid JSON: dirty */
  }
  const dirty = isNew || current !== saved;
  const error = save.error ?? toggle.error ?? stop.error ?? duplicate.error ?? remove.error;
  return (
    <div class="automation">
      {back}
      <PageHead title={isNew ? 'New automation' : a.data!.name}>
        {!isNew && <Badge status={a.data!.status} />}
        {edit && (
          <button class="btn primary" onClick={() => save.run()} disabled={save.busy || !dirty}>
            {isNew ? 'Create automation' : 'Save'}
          </button>
        )}
        {edit && !isNew && (
          <button class="btn" onClick={() => stop.run()} disabled={stop.busy}>
            Stop runs
          </button>
        )}
        {edit && !isNew && (
          <button class="btn ghost" onClick={() => duplicate.run()}>
            Duplicate
          </button>
        )}
        {edit && !isNew && (
          <button class="btn bad ghost" onClick={() => remove.run()}>
            Delete
          </button>
        )}
      </PageHead>
      {error && <Alert>{error}</Alert>}
      <section class="card">
        <div class="field">
          <label for="auto-name">Name</label>
          <input
            id="auto-name"
            value={name}
            disabled={!edit}
            maxLength={256}
            placeholder="Welcome series"
            onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
          />
        </div>
        {!isNew && (
          <>
            {edit ? (
              <Enabling
                name={a.data!.name}
                on={a.data!.status === 'enabled'}
                trigger={String(a.data!.steps.find((x) => x.type === 'trigger')?.config?.event_name ?? '')}
                dirty={dirty}
                confirming={confirming}
                setConfirming={setConfirming}
                busy={toggle.busy}
                onToggle={(on) => toggle.run(on)}
              />
            ) : null}
            <KV
              items={[
                ['Id', <span class="mono">{a.data!.id}</span>],
                ['Created', fmtDate(a.data!.created_at)],
                ['Updated', fmtDate(a.data!.updated_at)],
              ]}
            />
          </>
        )}
      </section>
      {!isNew && <Journey automation={a.data!} refs={refs.data} />}
      <section class="card" aria-labelledby="steps-h">
        <h2 id="steps-h">Steps</h2>
        {json === undefined ? (
          <AutomationBuilder
            tree={tree!}
            refs={refs.data}
            edit={edit}
            errors={errors}
            changed={() => {
              setTick((n) => n + 1);
              if (errors.size) setErrors(new Map());
            }}
          />
        ) : (
          <>
            <Alert kind="info">
              This automation joins branches in a way the builder does not draw: edit its steps and connections as JSON.
            </Alert>
            <label class="field">
              Steps and connections{' '}
              <textarea
                class="mono"
                rows={16}
                value={json}
                disabled={!edit}
                onInput={(e) => setJson((e.currentTarget as HTMLTextAreaElement).value)}
              />
            </label>
          </>
        )}
        <details class="as-json">
          <summary>As JSON (what the API receives)</summary>
          <Code>{current ? JSON.stringify(JSON.parse(current).g, null, 2) : '(not valid JSON)'}</Code>
        </details>
      </section>
      {!isNew && <Runs automationId={a.data!.id} />}
    </div>
  );
}

const COUNTS_POLL_MS = 4000;

/** The saved automation as a canvas with each step's counts, re-read every few seconds while the page is visible. */
function Journey({ automation, refs }: { automation: Automation; refs: Refs }) {
  const counts = useLoad(
    () => get<{ steps: StepCounts[] }>(`/automations/${encodeURIComponent(automation.id)}/counts`),
    [automation.id, automation.updated_at],
  );
  useVisibleInterval(counts.reload, COUNTS_POLL_MS);
  return (
    <section class="card" aria-labelledby="journey-h">
      <div class="row spread">
        <h2 id="journey-h">Journey</h2>
        <span class="small muted">As saved, with each step's runs and emails; refreshes every few seconds.</span>
      </div>
      {counts.error && !counts.data && <Alert>{counts.error}</Alert>}
      <AutomationCanvas
        steps={automation.steps}
        connections={automation.connections}
        counts={counts.data?.steps}
        titleOf={(s) => stepTitle(s, refs)}
      />
      <p class="hint">
        Reached: runs that got to the step. Waiting: at it now. Exited: runs that ended there. Rates are of the emails
        the step sent (ever opened, ever clicked).
      </p>
    </section>
  );
}

function Runs({ automationId }: { automationId: string }) {
  const [status, setStatus] = useState('');
  const list = usePaged<Run>(
    (after) =>
      `/automations/${automationId}/runs?limit=20${status ? `&status=${status}` : ''}${after ? `&after=${after}` : ''}`,
    `${automationId}:${status}`,
  );
  return (
    <section class="card" aria-labelledby="runs-h">
      <div class="row spread">
        <h2 id="runs-h">Runs</h2>
        <span class="row">
          <select
            aria-label="Run status"
            value={status}
            onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">All runs</option>
            {['running', 'completed', 'failed', 'cancelled'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
          <button type="button" class="btn sm" onClick={list.reload}>
            Refresh
          </button>
        </span>
      </div>
      {list.error ? (
        <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />
      ) : !list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <p class="muted">
          No runs{status ? ` ${status}` : ''} yet. An enabled automation starts one for each trigger event.
        </p>
      ) : (
        <PagedTable
          list={list}
          testId="runs"
          stack
          head={
            <>
              <th scope="col">Run</th>
              <th scope="col">Contact</th>
              <th scope="col">Status</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
            </>
          }
        >
          {list.rows.map((r) => (
            <tr key={r.id}>
              <td class="mono">
                <Link href={`/automations/${automationId}/runs/${r.id}`}>{r.id.slice(0, 8)}</Link>
              </td>
              <td class="wrap" data-testid="run-contact">
                {r.email}
              </td>
              <td class="aside">
                <Badge status={runTone(r.status)} text={r.status} />
              </td>
              <AgoCell at={r.started_at ?? r.created_at} />
              <td class="nowrap">{r.completed_at ? fmtDate(r.completed_at) : '—'}</td>
            </tr>
          ))}
        </PagedTable>
      )}
    </section>
  );
}
