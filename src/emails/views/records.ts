// A team's accepted emails after the send: read one, list, its timeline, cancel or reschedule a
// scheduled one. The HTTP routes call these; the SQL stays in store/emails.ts.
import { AppError, notFound } from '../../errors.js';
import { isUuid, uuid } from '../../lib/ids.js';
import type { Queryable } from '../../store/db.js';
import {
  emailCancel,
  emailCount,
  emailEventsList,
  emailFindById,
  emailLastEvent,
  emailList,
  emailRawFind,
  emailReschedule,
} from '../../store/emails.js';
import type { EmailFilters } from '../../store/email-filters.js';
import type { PageQuery } from '../../store/paginate.js';
import { parseScheduledAt } from '../schedule.js';
import type { DeferredBodies } from '../../delivery/deferred.js';

export type { AcceptedEmail } from '../../store/emails.js';

/** A team's email; a broadcast's email has its personalized html and text rendered (they are not stored). */
export async function emailGet(db: Queryable, teamId: string, id: string, bodies?: DeferredBodies) {
  const row = isUuid(id) ? await emailFindById(db, teamId, id) : undefined;
  if (!row) throw notFound('Email');
  const { deferred, ...email } = row;
  const body = deferred && bodies ? await bodies.render(deferred) : undefined;
  return body ? { ...email, html: body.html, text: body.text } : email;
}

export const emailsList = (db: Queryable, teamId: string, page: PageQuery, filters: EmailFilters) =>
  emailList(db, teamId, page, filters);

/** Counting stops here: past it the dashboard says "10,000+" (a count that reads at most this many rows). */
export const EMAIL_COUNT_CAP = 10_000;

export async function emailsCount(db: Queryable, teamId: string, filters: EmailFilters) {
  return { object: 'email_count' as const, ...(await emailCount(db, teamId, filters, EMAIL_COUNT_CAP)) };
}

/** The state of a team's email, or 404. */
async function lastEventOf(db: Queryable, teamId: string, id: string): Promise<string> {
  const last = isUuid(id) ? await emailLastEvent(db, teamId, id) : undefined;
  if (!last) throw notFound('Email');
  return last;
}

export async function emailTimeline(db: Queryable, teamId: string, id: string) {
  await lastEventOf(db, teamId, id);
  return emailEventsList(db, teamId, id);
}

export async function emailCancelScheduled(db: Queryable, teamId: string, id: string): Promise<void> {
  const last = await lastEventOf(db, teamId, id);
  const canceled = await emailCancel(db, teamId, id, {
    id: uuid(),
    email_id: id,
    team_id: teamId,
    type: 'email.canceled',
    recipient: null,
    data: { email_id: id },
    created_at: new Date().toISOString(),
  });
  if (!canceled)
    throw new AppError('validation_error', `Only scheduled emails can be canceled; this email is \`${last}\`.`);
}

export async function emailRescheduleScheduled(
  db: Queryable,
  teamId: string,
  id: string,
  scheduledAt: string,
): Promise<void> {
  const last = await lastEventOf(db, teamId, id);
  const at = parseScheduledAt(scheduledAt, new Date());
  if (!(await emailReschedule(db, teamId, id, at))) {
    throw new AppError('validation_error', `Only scheduled emails can be rescheduled; this email is \`${last}\`.`);
  }
}

/** The raw MIME of a team's email (the dashboard's Raw and Headers tabs); 404 when gone or purged. */
export async function emailRawOf(
  db: Queryable,
  teamId: string,
  id: string,
  retentionDays: number,
  bodies?: DeferredBodies,
): Promise<Buffer> {
  const row = isUuid(id) ? await emailRawFind(db, teamId, id) : undefined;
  if (!row) throw notFound('Email');
  const body = row.deferred && bodies ? await bodies.render(row.deferred) : undefined;
  if (body) return body.raw;
  if (!row.raw) throw notFound(`The message body (removed after ${retentionDays} days)`);
  return row.raw;
}
