// Resend cursor pagination over any team-owned table, newest first: `after` = id of the last
// item seen (older items follow), `before` = id of the first item seen (newer items). Ordered
// by (created_at, id) so ties on created_at cannot skip or repeat rows.
import { AppError } from '../errors.js';
import type { Queryable } from './db.js';

export interface PageQuery {
  limit?: number; // absent = everything (the "legacy" lists)
  after?: string;
  before?: string;
}

export interface Page<T> {
  has_more: boolean;
  data: T[];
}

export async function paginate<T>(
  db: Queryable,
  opts: {
    table: string; // a constant from code, never user input
    columns: string;
    teamId: string;
    page: PageQuery;
    where?: string; // extra SQL condition using parameters after the ones used here
    params?: unknown[];
  },
): Promise<Page<T>> {
  const { table, columns, teamId, page } = opts;
  const params: unknown[] = [teamId, ...(opts.params ?? [])];
  const extra = opts.where ? ` AND (${opts.where.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + 1}`)})` : '';
  const cursorId = page.after ?? page.before;
  let cursorCond = '';
  if (cursorId) {
    const found = await db.query(`SELECT 1 FROM ${table} WHERE team_id = $1 AND id = $2`, [teamId, cursorId]);
    if (!found.rowCount)
      throw new AppError(
        'validation_error',
        `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
      );
    params.push(cursorId);
    const c = `$${params.length}`;
    cursorCond = ` AND (created_at, id) ${page.after ? '<' : '>'} (SELECT created_at, id FROM ${table} WHERE id = ${c})`;
  }
  const asc = Boolean(page.before);
  let limitSql = '';
  if (page.limit !== undefined) {
    params.push(page.limit + 1);
    limitSql = ` LIMIT $${params.length}`;
  }
  const dir = asc ? 'ASC' : 'DESC';
  const { rows } = await db.query(
    // Qualified: a bare `created_at` would name the `created_at::text` output column, sort text and
    // skip the (team_id, created_at, id) index (measured: 0.9 s instead of ms per page at 1M rows).
    `SELECT ${columns} FROM ${table} WHERE team_id = $1${extra}${cursorCond} ORDER BY ${table}.created_at ${dir}, ${table}.id ${dir}${limitSql}`,
    params,
  );
  const hasMore = page.limit !== undefined && rows.length > page.limit;
  const data = hasMore ? rows.slice(0, page.limit) : rows;
  if (asc) data.reverse();
  return { has_more: hasMore, data: data as T[] };
}

/**
 * One page of a list read whole (a handful of items: an email's attachments, a contact's topics
 * or segments), in the list's own order: `after`/`before` are ids of its items. Without a limit
 * (a legacy list), everything after or before the cursor.
 */
export function pageOf<T extends { id: string }>(
  all: T[],
  page: PageQuery,
): { object: 'list'; has_more: boolean; data: T[] } {
  let items = all;
  const cursor = page.after ?? page.before;
  if (cursor) {
    const i = all.findIndex((a) => a.id === cursor);
    if (i < 0)
      throw new AppError(
        'validation_error',
        `The \`${page.after ? 'after' : 'before'}\` cursor does not match any item.`,
      );
    items = page.after ? all.slice(i + 1) : all.slice(0, i);
  }
  const limit = page.limit ?? items.length;
  const data = page.before ? items.slice(Math.max(0, items.length - limit)) : items.slice(0, limit);
  return { object: 'list', has_more: data.length < items.length, data };
}
