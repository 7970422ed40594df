// Contact imports: the upload form for owners and admins (a CSV, its columns mapped from the header
// the browser reads, what to do with known addresses, segments and topics for every contact), then
// the import's page; and the team's past imports with a status filter. Members only read.
import { useState } from 'preact/hooks';
import { get, qs, upload } from '../api';
import { allPages, type Segment, type Topic } from '../audience';
import { Link } from '../components/Link';
import { AgoCell, Alert, Badge, Empty, Loading, PagedTable, PageHead } from '../components/ui';
import { csvColumns, csvRowEstimate, guessColumn } from '../csv-head';
import type { PropertyDef } from '../filter-model';
import { bytes, num } from '../format';
import { useAction, useLoad, usePaged } from '../hooks';
import { navigate } from '../router';
import { canEdit, useSession } from '../session';

export interface ContactImport {
  id: string;
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  created_at: string;
  completed_at: string | null;
  counts: { total: number; created: number; updated: number; skipped: number; failed: number };
  failed_rows?: { row: number; email: string | null; reason: string }[];
  error: string | null;
}
const STATUSES = ['queued', 'in_progress', 'completed', 'failed'] as const;
/** The rows the browser counted in an uploaded file, by import id, for that import's progress bar. */
export const expectedRowsKey = (id: string) => `mailroom:import-rows:${id}`;

const FIELDS: [string, string][] = [
  ['email', 'Email'],
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['unsubscribed', 'Unsubscribed'],
];

export function Imports() {
  const { state } = useSession();
  const edit = canEdit(state);
  const [status, setStatus] = useState('');
  const list = usePaged<ContactImport>((after) => `/contacts/imports${qs({ limit: 50, after, status })}`, status);
  return (
    <div class="audience">
      <p>
        <Link href="/contacts">← Contacts</Link>
      </p>
      <PageHead
        title="Imports"
        sub="Add many contacts at once from a CSV file (a header row, comma-separated, UTF-8, up to 50 MB)."
      />
      {edit && <ImportForm />}
      <section class="card" aria-labelledby="past-h">
        <div class="section-head">
          <h2 id="past-h">Past imports</h2>
          <select
            aria-label="Status"
            value={status}
            onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}
          >
            <option value="">All statuses</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s.replace('_', ' ')}
              </option>
            ))}
          </select>
        </div>
        {list.error && <Alert>{list.error}</Alert>}
        {!list.loaded ? (
          <Loading />
        ) : list.rows.length === 0 ? (
          <Empty title={status ? 'No imports with this status' : 'No imports yet'}>
            {edit ? 'Upload a CSV above.' : 'Owners and admins import contacts here.'} Through the API:{' '}
            <code>POST /contacts/imports</code>.
          </Empty>
        ) : (
          <PagedTable
            list={list}
            testId="imports"
            head={
              <>
                <th scope="col">Started</th>
                <th scope="col">Status</th>
                <th scope="col" class="right">
                  Rows
                </th>
                <th scope="col" class="right">
                  Created
                </th>
                <th scope="col" class="right">
                  Updated
                </th>
                <th scope="col" class="right">
                  Skipped
                </th>
                <th scope="col" class="right">
                  Failed
                </th>
              </>
            }
          >
            {list.rows.map((i) => (
              <tr
                key={i.id}
                class="clickable"
                onClick={(e) => {
                  if (!(e.target as HTMLElement).closest('a')) navigate(`/contacts/imports/${i.id}`);
                }}
              >
                <AgoCell at={i.created_at} />
                <td>
                  <Link href={`/contacts/imports/${i.id}`}>
                    <Badge status={i.status} />
                  </Link>
                </td>
                <td class="right">{num(i.counts.total)}</td>
                <td class="right">{num(i.counts.created)}</td>
                <td class="right">{num(i.counts.updated)}</td>
                <td class="right">{num(i.counts.skipped)}</td>
                <td class="right">{num(i.counts.failed)}</td>
              </tr>
            ))}
          </PagedTable>
        )}
      </section>
    </div>
  );
}

function ImportForm() {
  const refs = useLoad(async () => {
    const [props, segments, topics] = await Promise.all([
      get<{ data: PropertyDef[] }>('/contact-properties'),
      allPages<Segment>(get, '/segments'),
      allPages<Topic>(get, '/topics'),
    ]);
    return { props: props.data, segments: segments.filter((s) => !s.filter), topics };
  }, []);
  const [file, setFile] = useState<{ file: File; columns: string[] }>();
  const [map, setMap] = useState<Record<string, string>>({});
  const pick = useAction(async (f: File | undefined) => {
    setFile(undefined);
    if (!f) return;
    const columns = await csvColumns(f);
    const guess: Record<string, string> = {};
    for (const [k] of FIELDS) guess[k] = guessColumn(k, columns);
    for (const p of refs.data?.props ?? []) guess[`properties.${p.key}`] = guessColumn(p.key, columns);
    setMap(guess);
    setFile({ file: f, columns });
  });
  const send = useAction(async (form: HTMLFormElement) => {
    if (!file) throw new Error('Choose a CSV file first.');
    const fd = new FormData(form);
    const columnMap: Record<string, unknown> = {};
    const properties: Record<string, { column: string }> = {};
    for (const [k, col] of Object.entries(map)) {
      if (!col) continue;
      if (k.startsWith('properties.')) properties[k.slice('properties.'.length)] = { column: col };
      else columnMap[k] = col;
    }
    if (Object.keys(properties).length) columnMap.properties = properties;
    const topics = (refs.data?.topics ?? [])
      .map((t) => ({ id: t.id, subscription: fd.get(`topic-${t.id}`) as string }))
      .filter((t) => t.subscription);
    const body = new FormData();
    body.append('file', file.file, file.file.name);
    body.append('column_map', JSON.stringify(columnMap));
    body.append('on_conflict', (fd.get('on_conflict') as string) || 'skip');
    body.append('segments', JSON.stringify(fd.getAll('segment').map((id) => ({ id }))));
    body.append('topics', JSON.stringify(topics));
    const rows = csvRowEstimate(file.file);
    const made = await upload<{ id: string }>('/contacts/imports', body);
    try {
      sessionStorage.setItem(expectedRowsKey(made.id), String(await rows));
    } catch {
      /* storage full or off: the bar is then indeterminate */
    }
    navigate(`/contacts/imports/${made.id}`);
  });
  if (refs.error) return <Alert>{refs.error}</Alert>;
  if (!refs.data) return <Loading />;
  const { props, segments, topics } = refs.data;
  const columnSelect = (k: string, label: string) => (
    <label key={k}>
      {label}
      <select
        aria-label={`Column for ${label}`}
        value={map[k] ?? ''}
        onChange={(e) => setMap({ ...map, [k]: (e.currentTarget as HTMLSelectElement).value })}
      >
        <option value="">{k === 'email' ? '(choose a column)' : '(not imported)'}</option>
        {file?.columns.map((c) => (
          <option key={c} value={c}>
            {c}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <form
      class="card import-form"
      aria-label="Import contacts"
      onSubmit={(e) => {
        e.preventDefault();
        send.run(e.currentTarget as HTMLFormElement);
      }}
    >
      <h2>Import a CSV</h2>
      <label class="field">
        CSV file
        <input
          type="file"
          name="file"
          accept=".csv,text/csv"
          required
          onChange={(e) => pick.run((e.currentTarget as HTMLInputElement).files?.[0])}
        />
      </label>
      {pick.error && <Alert>{pick.error}</Alert>}
      {file && (
        <>
          <p class="hint">
            {file.file.name}, {bytes(file.file.size)}: columns{' '}
            {file.columns.map((c) => `"${c}"`).join(', ') || '(none found)'}.
          </p>
          <fieldset>
            <legend>Columns</legend>
            <p class="hint">
              Guessed from the header; a field left "not imported" is still read from a column named after it (
              <code>first_name</code>, <code>plan</code>).
            </p>
            <div class="column-map">
              {FIELDS.map(([k, l]) => columnSelect(k, l))}
              {props.map((p) => columnSelect(`properties.${p.key}`, `Property ${p.key}`))}
            </div>
          </fieldset>
        </>
      )}
      <fieldset>
        <legend>Addresses you already have</legend>
        <div class="checks">
          <label class="field-inline">
            <input type="radio" name="on_conflict" value="skip" defaultChecked /> Leave those contacts as they are
          </label>
          <label class="field-inline">
            <input type="radio" name="on_conflict" value="upsert" /> Update them with the file's values
          </label>
        </div>
      </fieldset>
      {segments.length > 0 && (
        <fieldset>
          <legend>Add every imported contact to</legend>
          <div class="checks">
            {segments.map((s) => (
              <label key={s.id} class="field-inline">
                <input type="checkbox" name="segment" value={s.id} /> {s.name}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {topics.length > 0 && (
        <fieldset>
          <legend>Topics for every imported contact</legend>
          <div class="checks">
            {topics.map((t) => (
              <label key={t.id} class="field-inline">
                {t.name}
                <select name={`topic-${t.id}`} aria-label={`Topic ${t.name}`}>
                  <option value="">unchanged</option>
                  <option value="opt_in">subscribe</option>
                  <option value="opt_out">unsubscribe</option>
                </select>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <button class="btn primary" disabled={send.busy || pick.busy}>
        {send.busy ? 'Uploading…' : 'Upload and import'}
      </button>
      {send.error && <Alert>{send.error}</Alert>}
    </form>
  );
}
