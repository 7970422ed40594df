// The audit log as CSV (the dashboard's export): RFC 4180 quoting, and no cell a spreadsheet would
// run as a formula: one that starts with = + - @ (or a tab or carriage return) gets a leading '.
import type { Queryable } from '../store/db.js';
import { auditList } from '../store/audit-log.js';
import { auditFilterOf, type AuditQuery } from './read.js';
import { csvCell } from '../lib/csv-cell.js';

export { csvCell };

const HEAD = [
  'created_at',
  'seq',
  'action',
  'actor_kind',
  'actor_id',
  'actor',
  'ip',
  'user_agent',
  'target_kind',
  'target_id',
  'before',
  'after',
  'id',
  'hash',
];

type Shown = {
  id: string;
  seq: number;
  created_at: string;
  actor: { kind: string; id: string | null; display: string | null };
  ip: string | null;
  user_agent: string | null;
  action: string;
  target: { kind: string; id: string | null };
  summary: { before?: unknown; after?: unknown };
  hash: string;
};

export const csvRow = (e: Shown): string =>
  [
    e.created_at,
    e.seq,
    e.action,
    e.actor.kind,
    e.actor.id,
    e.actor.display,
    e.ip,
    e.user_agent,
    e.target.kind,
    e.target.id,
    e.summary.before ?? null,
    e.summary.after ?? null,
    e.id,
    e.hash,
  ]
    .map(csvCell)
    .join(',');

/** The most rows one export carries (newest first); narrow the filters for older ones. */
export const CSV_MAX_ROWS = 50_000;

/** Every entry the filters select, newest first, as CSV lines (header first), read 1,000 at a time. */
export async function* auditCsv(db: Queryable, teamId: string, q: AuditQuery): AsyncGenerator<string> {
  const filter = auditFilterOf(q);
  yield `${HEAD.join(',')}\r\n`;
  let after: string | undefined;
  let sent = 0;
  for (;;) {
    const page = await auditList(db, teamId, { limit: 1000, after }, filter);
    const rows = page.data as unknown as Shown[];
    if (rows.length) yield rows.map((r) => `${csvRow(r)}\r\n`).join('');
    sent += rows.length;
    if (!page.has_more || sent >= CSV_MAX_ROWS) return;
    after = rows[rows.length - 1].id;
  }
}
