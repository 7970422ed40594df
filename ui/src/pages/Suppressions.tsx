// Suppressions: addresses Mailroom will not send to (hard bounces, complaints, added by hand).
import { del, get, post, type List } from '../api';
import { Alert, Badge, Empty, Loading, PageHead } from '../components/ui';
import { ago, fmtDate } from '../format';
import { useAction, useLoad } from '../hooks';
import { canEdit, useSession } from '../session';

interface Suppression { id: string; email: string; origin: string; source_id: string | null; created_at: string }

export function Suppressions() {
  const { state } = useSession();
  const edit = canEdit(state);
  const list = useLoad(() => get<List<Suppression>>('/suppressions?limit=100'), []);
  const add = useAction(async (form: HTMLFormElement) => {
    await post('/suppressions', { email: (new FormData(form).get('email') as string).trim() });
    form.reset();
    list.reload();
  });
  const remove = useAction(async (s: Suppression) => {
    if (!confirm(`Allow mail to ${s.email} again?`)) return;
    await del(`/suppressions/${s.id}`);
    list.reload();
  });
  return (
    <>
      <PageHead title="Suppressions" sub="Mailroom skips these recipients (recorded as email.suppressed) to protect your reputation." />
      {edit && (
        <form class="inline-form" onSubmit={(e) => { e.preventDefault(); add.run(e.currentTarget as HTMLFormElement); }}>
          <label class="sr-only" for="sup-email">Address</label>
          <input id="sup-email" name="email" type="email" required placeholder="someone@example.com" class="grow" />
          <button class="btn">Suppress address</button>
          {add.error && <Alert>{add.error}</Alert>}
        </form>
      )}
      {remove.error && <Alert>{remove.error}</Alert>}
      {!list.data ? (list.error ? <Alert>{list.error}</Alert> : <Loading />) : list.data.data.length === 0 ? (
        <Empty title="Nothing suppressed">Addresses land here after a hard bounce or a spam complaint, or when you add them.</Empty>
      ) : (
        <div class="table-wrap">
          <table class="list">
            <thead><tr><th scope="col">Address</th><th scope="col">Reason</th><th scope="col">Since</th>{edit && <th scope="col"><span class="sr-only">Actions</span></th>}</tr></thead>
            <tbody>{list.data.data.map((s) => (
              <tr key={s.id}>
                <td>{s.email}</td>
                <td><Badge status={s.origin === 'manual' ? 'sent' : 'bounced'} text={s.origin} /></td>
                <td title={fmtDate(s.created_at)}>{ago(s.created_at)}</td>
                {edit && <td class="right"><button class="btn ghost sm" onClick={() => remove.run(s)} aria-label={`Remove ${s.email}`}>Remove</button></td>}
              </tr>
            ))}</tbody>
          </table>
        </div>
      )}
    </>
  );
}
