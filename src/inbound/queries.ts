// Reading received mail for the API (GET /emails/receiving[...]) and its signed downloads: the
// team checks and 404s here, the SQL in store/received-emails.ts, the views in views.ts.
import { notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { blobStream } from '../store/blobs.js';
import type { Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  receivedAttachmentFind,
  receivedAttachmentList,
  receivedEmailExists,
  receivedEmailFind,
  receivedEmailList,
  receivedEmailRawBlob,
} from '../store/received-emails.js';

export { blobStream };

export const receivedList = (db: Queryable, teamId: string, page: PageQuery) => receivedEmailList(db, teamId, page);

export async function receivedGet(db: Queryable, teamId: string, id: string) {
  const email = isUuid(id) ? await receivedEmailFind(db, teamId, id) : undefined;
  if (!email) throw notFound('Email');
  return { email, attachments: await receivedAttachmentList(db, teamId, id) };
}

/** The attachments of a team's received email, in message order; 404 when the email is not the team's. */
export async function receivedAttachmentsOf(db: Queryable, teamId: string, id: string) {
  if (!isUuid(id)) throw notFound('Email');
  const all = await receivedAttachmentList(db, teamId, id);
  if (!all.length && !(await receivedEmailExists(db, teamId, id))) throw notFound('Email');
  return all;
}

export async function receivedAttachmentOf(db: Queryable, teamId: string, id: string, attachmentId: string) {
  const a = isUuid(id) && isUuid(attachmentId) ? await receivedAttachmentFind(db, attachmentId) : undefined;
  if (!a || a.email_id !== id || a.team_id !== teamId) throw notFound('Attachment');
  return a;
}

/** For a checked signed link: the raw message's blob, or one attachment, by id alone. */
export const receivedRawForDownload = (db: Queryable, id: string) => receivedEmailRawBlob(db, id);
export const receivedAttachmentForDownload = (db: Queryable, id: string) => receivedAttachmentFind(db, id);
