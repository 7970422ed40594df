// Suppressions: addresses Mailroom will not send to (hard bounces, complaints, added by hand),
// paged by cursor (more rows on scroll or "Load more"), filterable by reason.
import { useState } from 'preact/hooks';
import { del, post, qs } from '../api';
import { Alert, Badge, Empty, ErrorRetry, Loading, PagedTable, PageHead } from '../components/ui';
import { ago, fmtDate } from '../format';
import { useAction, usePaged } from '../hooks';
import { canEdit, useSession } from '../session';

interface Suppression {
  id: string;
  email: string;
  origin: string;
  source_id: string | null;
  created_at: string;
}

const ORIGINS: Record<string, string> = { bounce: 'Hard bounce', complaint: 'Complaint', manual: 'Added by hand' };

export function Suppressions() {
  const { state } = useSession();
  const edit = canEdit(state);
  const [origin, setOrigin] = useState('');
  const list = usePaged<Suppression>((after) => `/suppressions${qs({ limit: 50, after, origin })}`, origin);
  const add = useAction(async (form: HTMLFormElement) => {
    await post('/suppressions', { email: (new FormData(form).get('email') as string).trim() });
    form.reset();
    list.reload();
  });
  const remove = useAction(async (s: Suppression) => {
    if (!confirm(`Allow mail to ${s.email} again?`)) return;
    await del(`/suppressions/${s.id}`);
    list.setRows((rows) => rows.filter((r) => r.id !== s.id));
  });
  return (
    <>
      <PageHead
        title="Suppressions"
        sub="Mailroom skips these recipients (recorded as email.suppressed) to protect your reputation."
      />
      {edit && (
        <form
          class="inline-form"
          onSubmit={(e) => {
            e.preventDefault();
            add.run(e.currentTarget as HTMLFormElement);
          }}
        >
          <label class="sr-only" for="sup-email">
            Address
          </label>
          <input id="sup-email" name="email" type="email" required placeholder="someone@example.com" class="grow" />
          <button class="btn">Suppress address</button>
          {add.error && <Alert>{add.error}</Alert>}
        </form>
      )}
      <div class="filters" role="group" aria-label="Filter suppressions">
        <label class="inline small">
          Reason
          <select value={origin} onChange={(e) => setOrigin((e.target as HTMLSelectElement).value)}>
            <option value="">Any reason</option>
            {Object.entries(ORIGINS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        {origin && (
          <span class="muted small" data-testid="filtered">
            Filtered: only “{ORIGINS[origin]}”.{' '}
            <button type="button" class="linkish" onClick={() => setOrigin('')}>
              Show all
            </button>
          </span>
        )}
      </div>
      {remove.error && <Alert>{remove.error}</Alert>}
      {list.error && <ErrorRetry error={list.error} status={list.errorStatus} retry={list.reload} />}
      {!list.loaded ? (
        <Loading />
      ) : list.error && !list.rows.length ? null : list.rows.length === 0 ? (
        origin ? (
          <Empty
            title="No suppressions with this reason"
            action={
              <button class="btn" onClick={() => setOrigin('')}>
                Show all
              </button>
            }
          />
        ) : (
          <Empty title="Nothing suppressed">
            Addresses land here after a hard bounce or a spam complaint, or when you add them.
          </Empty>
        )
      ) : (
        <PagedTable
          list={list}
          stack
          testId="suppressions"
          head={
            <>
              <th scope="col">Address</th>
              <th scope="col">Reason</th>
              <th scope="col">Since</th>
              {edit && (
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              )}
            </>
          }
        >
          {list.rows.map((s) => (
            <tr key={s.id}>
              <td class="wrap">{s.email}</td>
              <td class="aside">
                <Badge status={s.origin === 'manual' ? 'sent' : 'bounced'} text={ORIGINS[s.origin] ?? s.origin} />
              </td>
              <td title={fmtDate(s.created_at)}>{ago(s.created_at)}</td>
              {edit && (
                <td class="right aside">
                  <button class="btn ghost sm" onClick={() => remove.run(s)} aria-label={`Remove ${s.email}`}>
                    Remove
                  </button>
                </td>
              )}
            </tr>
          ))}
        </PagedTable>
      )}
      {list.loaded && list.rows.length > 0 && (
        <p class="muted small" data-testid="list-count">
          {list.rows.length} shown{list.hasMore ? '; more load as you scroll' : ''}
          {origin ? ' (filtered)' : ''}.
        </p>
      )}
    </>
  );
}
