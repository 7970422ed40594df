// The team's retention (GET/PATCH /privacy/retention): for each kind of data the days kept, the
// default and the instance's ceiling. Owners and admins change a value or put it back to the
// default; the API's refusal (above the ceiling, not a whole number) is shown in its own words.
import { useState } from 'preact/hooks';
import { get, patch } from '../api';
import { useAction, useLoad } from '../hooks';
import { Alert, Badge, ErrorRetry, Loading } from './ui';

const KINDS: [string, string][] = [
  ['email_bodies_days', 'Email bodies and raw MIME'],
  ['received_emails_days', 'Received emails'],
  ['tracking_days', 'Tracking (opens and clicks)'],
  ['request_logs_days', 'Request-log bodies'],
  ['webhook_payloads_days', 'Webhook payloads'],
  ['events_days', 'Events'],
  ['automation_runs_days', 'Automation runs'],
];

interface Retention {
  custom: string[];
  defaults: Record<string, number | null>;
  maximum: Record<string, number>;
  [field: string]: unknown;
}

const days = (n: number | null | undefined) => (n == null ? 'kept' : `${n} day${n === 1 ? '' : 's'}`);

export function RetentionSettings({ edit }: { edit: boolean }) {
  const r = useLoad(() => get<Retention>('/privacy/retention'), []);
  const [draft, setDraft] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const save = useAction(async (change: Record<string, number | null>) => {
    setSaved(false);
    await patch('/privacy/retention', change);
    setDraft({});
    setSaved(true);
    r.reload();
  });
  const submit = () => {
    const change: Record<string, number | null> = {};
    for (const [f, v] of Object.entries(draft)) change[f] = v.trim() === '' ? null : Number(v);
    if (Object.keys(change).length) save.run(change);
  };
  return (
    <section class="card" aria-labelledby="retention-h">
      <h2 id="retention-h">Retention</h2>
      <p class="muted small">
        How long this team keeps each kind of data. The instance's setting is the ceiling; "kept" means no purge. A
        purge job removes older data in batches.
      </p>
      {r.error && <ErrorRetry error={r.error} status={r.errorStatus} retry={r.reload} />}
      {!r.data ? (
        r.error ? null : (
          <Loading />
        )
      ) : (
        <form
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <div class="table-wrap">
            <table class="list" aria-label="Retention per kind of data">
              <thead>
                <tr>
                  <th scope="col">Data</th>
                  <th scope="col">Kept for</th>
                  <th scope="col">Default</th>
                  <th scope="col">Ceiling</th>
                </tr>
              </thead>
              <tbody>
                {KINDS.map(([f, name]) => {
                  const data = r.data!;
                  const value = data[f] as number | null;
                  const custom = data.custom.includes(f);
                  return (
                    <tr key={f} data-kind={f}>
                      <th scope="row">{name}</th>
                      <td>
                        {edit ? (
                          <span class="row">
                            <input
                              type="number"
                              min={1}
                              step={1}
                              style={{ width: '7em' }}
                              aria-label={`${name}: days kept`}
                              placeholder={value == null ? 'kept' : String(value)}
                              value={draft[f] ?? (custom && value != null ? String(value) : '')}
                              onInput={(e) => setDraft({ ...draft, [f]: (e.target as HTMLInputElement).value })}
                            />
                            {custom && (
                              <button
                                type="button"
                                class="btn ghost sm"
                                aria-label={`${name}: use the default`}
                                onClick={() => save.run({ [f]: null })}
                              >
                                Use default
                              </button>
                            )}
                          </span>
                        ) : (
                          days(value)
                        )}{' '}
                        {custom && <Badge status="info" text="set for this team" />}
                      </td>
                      <td>{days(data.defaults[f])}</td>
                      <td>at most {days(data.maximum[f])}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          {edit && (
            <div class="row">
              <button class="btn primary" disabled={save.busy || !Object.keys(draft).length}>
                Save retention
              </button>
              {saved && !save.error && <span role="status">Saved.</span>}
            </div>
          )}
          {save.error && <Alert>{save.error}</Alert>}
        </form>
      )}
    </section>
  );
}
