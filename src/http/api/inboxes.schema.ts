// The shared schemas of /inboxes/*: the inbox segment (an inbox id or its address, URL-encoded as
// the SDK sends it) and open bodies (each service validates its fields and names the bad one).
import { Type } from 'typebox';

export const tags = ['Inboxes'];
export const InboxParam = Type.Object({ inbox: Type.String({ maxLength: 400 }) });
export const ThreadParams = Type.Object({
  inbox: Type.String({ maxLength: 400 }),
  threadId: Type.String({ maxLength: 100 }),
});
export const OpenBody = Type.Record(Type.String(), Type.Unknown());
export const OpenQuery = Type.Record(Type.String(), Type.String());
/** Inbox bodies are text and small; drafts and replies carry attachments (25 MB as base64, plus room). */
export const INBOX_BODY_LIMIT = 64 * 1024;
export const ATTACHMENT_BODY_LIMIT = 36 * 1024 * 1024;
