// The Broadcasts list as a comparison: per broadcast its status, when it went out, how many emails
// it sent, and its delivered, opened, clicked, unsubscribed and complained rates side by side (the
// server's running counters, `stats` of GET /broadcasts), sortable by any column (the loaded rows).
import { useState } from 'preact/hooks';
import { fmtDate, num } from '../format';
import { Link } from './Link';
import { AgoCell, Badge, PagedTable } from './ui';

export interface BroadcastItem {
  id: string;
  name: string;
  status: string;
  created_at: string;
  scheduled_at: string | null;
  sent_at: string | null;
  stats?: {
    sent: number;
    delivered: number;
    opened: number;
    clicked: number;
    unsubscribed: number;
    complained: number;
  };
}

type RateKey = 'delivered' | 'opened' | 'clicked' | 'unsubscribed' | 'complained';
type SortKey = 'name' | 'created_at' | 'sent' | RateKey;

/** Delivered per email sent; the rest per email delivered (what a reader could act on). */
export function rateOf(b: BroadcastItem, k: RateKey): number | undefined {
  const s = b.stats;
  if (!s) return undefined;
  const base = k === 'delivered' ? s.sent : s.delivered;
  return base ? s[k] / base : undefined;
}
const pct = (r: number | undefined) =>
  r === undefined ? '—' : `${(r * 100).toFixed(r > 0 && r < 0.1 ? 1 : 0).replace(/\.0$/, '')}%`;

const RATES: [RateKey, string][] = [
  ['delivered', 'Delivered'],
  ['opened', 'Opened'],
  ['clicked', 'Clicked'],
  ['unsubscribed', 'Unsubscribed'],
  ['complained', 'Complained'],
];

const badge = (s: string) =>
  s === 'sent' ? 'enabled' : s === 'paused' || s === 'canceled' ? 'failed' : s === 'draft' ? 'draft' : 'pending';

function valueOf(b: BroadcastItem, k: SortKey): number | string {
  if (k === 'name') return b.name.toLowerCase();
  if (k === 'created_at') return b.created_at;
  if (k === 'sent') return b.stats?.sent ?? 0;
  return rateOf(b, k) ?? -1;
}

export function BroadcastCompare(props: { list: Parameters<typeof PagedTable>[0]['list']; rows: BroadcastItem[] }) {
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'created_at', desc: true });
  const rows = [...props.rows].sort((a, b) => {
    const x = valueOf(a, sort.key);
    const y = valueOf(b, sort.key);
    const c = x < y ? -1 : x > y ? 1 : 0;
    return sort.desc ? -c : c;
  });
  const Head = ({ k, label, right }: { k: SortKey; label: string; right?: boolean }) => (
    <th
      scope="col"
      class={right ? 'right' : undefined}
      aria-sort={sort.key === k ? (sort.desc ? 'descending' : 'ascending') : 'none'}
    >
      <button class="linkish" onClick={() => setSort((s) => ({ key: k, desc: s.key === k ? !s.desc : k !== 'name' }))}>
        {label}
        {sort.key === k ? (sort.desc ? ' ↓' : ' ↑') : ''}
      </button>
    </th>
  );
  return (
    <PagedTable
      list={props.list}
      testId="broadcasts"
      head={
        <>
          <Head k="name" label="Name" />
          <th scope="col">Status</th>
          <Head k="sent" label="Sent" right />
          {RATES.map(([k, label]) => (
            <Head key={k} k={k} label={label} right />
          ))}
          <Head k="created_at" label="Created" />
        </>
      }
    >
      {rows.map((b) => (
        <tr key={b.id}>
          <td>
            <Link href={`/broadcasts/${b.id}`}>{b.name || '(unnamed)'}</Link>
            <div class="small muted">
              {b.sent_at ? fmtDate(b.sent_at) : b.scheduled_at ? `scheduled ${fmtDate(b.scheduled_at)}` : ''}
            </div>
          </td>
          <td>
            <Badge status={badge(b.status)} text={b.status} />
          </td>
          <td class="right nowrap" data-col="sent">
            {num(b.stats?.sent)}
          </td>
          {RATES.map(([k]) => (
            <td key={k} class="right nowrap" data-col={k} title={b.stats ? `${num(b.stats[k])} emails` : undefined}>
              {pct(rateOf(b, k))}
            </td>
          ))}
          <AgoCell at={b.created_at} />
        </tr>
      ))}
    </PagedTable>
  );
}
