// The team's suppression list as a capability (/suppressions): manual entries added and removed
// by id or address, listed by origin. Bounces and complaints add theirs from delivery and the
// return paths; every add and removal records suppression.added/removed (store/suppressions.ts).
import { AppError, notFound } from '../errors.js';
import { parseAddress } from '../mime/addresses.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  suppressionAdd,
  suppressionDelete,
  suppressionFindByIdOrEmail,
  suppressionList,
  type SuppressionRow,
} from '../store/suppressions.js';

const ORIGINS = ['bounce', 'complaint', 'manual'];

/** A request's address, lowercased, or a 422 naming the field. */
export function suppressionAddress(field: string, v: unknown): string {
  if (typeof v !== 'string' || !v) throw new AppError('missing_required_field', `Missing \`${field}\` field.`);
  return parseAddress(v, field).address.toLowerCase();
}

export const suppressManually = (db: Queryable, teamId: string, email: string): Promise<SuppressionRow> =>
  suppressionAdd(db, teamId, email, 'manual', null);

export async function suppressionGet(db: Queryable, teamId: string, idOrEmail: string): Promise<SuppressionRow> {
  const row = await suppressionFindByIdOrEmail(db, teamId, idOrEmail, isUuid(idOrEmail));
  if (!row) throw notFound('Suppression');
  return row;
}

/** Removes by id or address; the row removed, or undefined when there was none. */
export async function suppressionRemove(
  db: Queryable,
  teamId: string,
  idOrEmail: string,
): Promise<{ id: string; deleted: boolean }> {
  const row = await suppressionFindByIdOrEmail(db, teamId, idOrEmail, isUuid(idOrEmail));
  return { id: row?.id ?? idOrEmail, deleted: row ? await suppressionDelete(db, teamId, row.id) : false };
}

export function suppressionsList(db: Queryable, teamId: string, page: PageQuery, origin: string | undefined) {
  if (origin !== undefined && !ORIGINS.includes(origin))
    throw new AppError('validation_error', 'Invalid `origin` parameter: must be "bounce", "complaint" or "manual".');
  return suppressionList(db, teamId, page, origin);
}
