// API request logs: written in batches by request-logs/recorder.ts, read by GET /logs.
import { teamRetentionDaysSql, teamRetentionMinDaysSql } from './privacy.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface RequestLogRow {
  id: string;
  team_id: string | null;
  api_key_id: string | null;
  method: string;
  endpoint: string;
  path: string;
  status: number;
  error_name: string | null;
  user_agent: string | null;
  ip: string | null;
  request_body: unknown;
  response_body: unknown;
  duration_ms: number;
  created_at: string; // ISO, set when the request arrived
}

/**
 * One statement for the whole batch: the rows travel as one jsonb parameter, parsed once (as json,
 * a batch request's body was lexed three times on its way into the jsonb column: issue 27).
 */
export async function requestLogInsertMany(db: Queryable, rows: RequestLogRow[]): Promise<void> {
  if (!rows.length) return;
  await db.query('INSERT INTO request_logs SELECT * FROM jsonb_populate_recordset(NULL::request_logs, $1::jsonb)', [
    JSON.stringify(rows),
  ]);
}

const LIST_COLUMNS = `id, created_at::text AS created_at, endpoint, method, status AS response_status, user_agent`;

export interface LogFilter {
  status?: number;
  statusClass?: number; // 4 for 4xx: 400 <= status < 500
  endpoint?: string;
  apiKeyId?: string;
  method?: string;
}

export async function requestLogList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  f: LogFilter = {},
): Promise<Page<Record<string, unknown>>> {
  const conds: string[] = [];
  const params: unknown[] = [];
  if (f.status !== undefined) {
    params.push(f.status);
    conds.push(`status = $${params.length}`);
  }
  if (f.statusClass !== undefined) {
    params.push(f.statusClass * 100);
    conds.push(`status >= $${params.length} AND status < $${params.length} + 100`);
  }
  if (f.endpoint) {
    params.push(f.endpoint);
    conds.push(`endpoint = $${params.length}`);
  }
  if (f.apiKeyId) {
    params.push(f.apiKeyId);
    conds.push(`api_key_id = $${params.length}`);
  }
  if (f.method) {
    params.push(f.method);
    conds.push(`method = $${params.length}`);
  }
  return paginate(db, {
    table: 'request_logs',
    columns: LIST_COLUMNS,
    teamId,
    page,
    where: conds.join(' AND ') || undefined,
    params,
  });
}

export async function requestLogFind(
  db: Queryable,
  teamId: string,
  id: string,
): Promise<Record<string, unknown> | undefined> {
  const { rows } = await db.query(
    `SELECT ${LIST_COLUMNS}, request_body, response_body, error_name, duration_ms, api_key_id FROM request_logs WHERE team_id = $1 AND id = $2`,
    [teamId, id],
  );
  return rows[0];
}

/** One batch of at most `limit` logs past their team's retention (team_retention, at most `days`). */
export async function requestLogDeleteOlderThan(db: Queryable, days: number, limit = 10_000): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM request_logs WHERE id IN (
       SELECT id FROM request_logs t WHERE created_at < now() - make_interval(days => ${teamRetentionMinDaysSql('request_logs', '$1')})
         AND created_at < now() - make_interval(days => ${teamRetentionDaysSql('request_logs', 't.team_id', '$1')}) LIMIT $2)`,
    [days, limit],
  );
  return rowCount ?? 0;
}
