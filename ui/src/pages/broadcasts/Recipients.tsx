// The recipients table of a broadcast, by event type, paged by cursor.
import { useState } from 'preact/hooks';
import { qs } from '../../api';
import { Alert, Loading, PagedTable } from '../../components/ui';
import { Link } from '../../components/Link';
import { num } from '../../format';
import { usePaged } from '../../hooks';

const TYPES = [
  'sent',
  'delivered',
  'opened',
  'clicked',
  'bounced',
  'complained',
  'unsubscribed',
  'suppressed',
] as const;
interface Recipient {
  id: string;
  contact_id: string | null;
  email: string;
  count?: number;
  bounce_type?: string;
  clicked_links?: { url: string; clicks: number }[];
}

/** GET /broadcasts/:id/recipients?type=…: who got it, opened it, clicked… paged by cursor. */
export function Recipients({ id, refresh }: { id: string; refresh: string }) {
  const [type, setType] = useState<(typeof TYPES)[number]>('sent');
  const [email, setEmail] = useState('');
  const [q, setQ] = useState('');
  const list = usePaged<Recipient>(
    (after) => `/broadcasts/${id}/recipients${qs({ type, email: q, limit: 50, after })}`,
    `${id}|${type}|${q}|${refresh}`,
  );
  const extra = type === 'opened' || type === 'clicked' ? 'Times' : type === 'bounced' ? 'Bounce' : null;
  return (
    <section class="card">
      <h2>Recipients</h2>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(email.trim());
        }}
      >
        <label class="sr-only" for="bc-rcpt-type">
          Which recipients
        </label>
        <select id="bc-rcpt-type" value={type} onChange={(e) => setType(e.currentTarget.value as typeof type)}>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t === 'sent' ? 'all sent' : t}
            </option>
          ))}
        </select>
        <label class="sr-only" for="bc-rcpt-email">
          Find an address
        </label>
        <input
          id="bc-rcpt-email"
          type="search"
          class="grow"
          value={email}
          placeholder="Find an address"
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <button class="btn">Find</button>
      </form>
      {list.error && <Alert>{list.error}</Alert>}
      {!list.loaded ? (
        <Loading />
      ) : list.rows.length === 0 ? (
        <p class="muted" data-testid="recipients-empty">
          No recipients {type === 'sent' ? 'yet' : `${type} yet`}
          {q ? ` matching ${q}` : ''}.
        </p>
      ) : (
        <PagedTable
          list={list}
          testId="recipients"
          head={
            <>
              <th scope="col">Email</th>
              <th scope="col">Contact</th>
              {extra && <th scope="col">{extra}</th>}
            </>
          }
        >
          {list.rows.map((r) => (
            <tr key={r.id}>
              <td class="wrap">
                <Link href={`/emails/${r.id}`}>{r.email}</Link>
              </td>
              <td>{r.contact_id ? <Link href={`/contacts/${r.contact_id}`}>contact</Link> : '—'}</td>
              {extra && <td>{type === 'bounced' ? r.bounce_type : num(r.count ?? 0)}</td>}
            </tr>
          ))}
        </PagedTable>
      )}
    </section>
  );
}
