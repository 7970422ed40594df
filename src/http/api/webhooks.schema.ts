// Request schemas shared by the webhook endpoints, and the `after`-only cursor of the webhook log
// lists (their ids are msg_... and atmpt_..., not UUIDs). Field checks that answer with Resend's
// error names are the service's.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { PageQuery } from '../pagination.js';

export const WebhookBody = Type.Object(
  {
    endpoint: Type.Optional(Type.Unknown()),
    events: Type.Optional(Type.Unknown()),
    status: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: true },
);

export const IdParams = Type.Object({ id: Type.String() });
export const MessageParams = Type.Object({ id: Type.String(), message_id: Type.String() });

export const AfterPageQuery = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const LIMIT_MESSAGE =
  'The pagination limit must be a number between 1 and 100. See https://resend.com/docs/pagination for more information.';

/** limit 1-100 (default 20) and `after` = the id of the last item seen, newest first. */
export function parseAfterPage(
  q: { limit?: string; after?: string; before?: string },
  prefix: 'msg_' | 'atmpt_',
): PageQuery {
  if (q.limit !== undefined && (!/^\d+$/.test(q.limit) || Number(q.limit) < 1 || Number(q.limit) > 100))
    throw new AppError('validation_error', LIMIT_MESSAGE);
  if (q.before !== undefined) throw new AppError('validation_error', 'This list pages with `after` only.');
  if (q.after !== undefined && !new RegExp(`^${prefix}[A-Za-z0-9]{1,64}$`).test(q.after)) {
    throw new AppError('validation_error', 'The `after` cursor must be the id of an item in the list.');
  }
  return { limit: q.limit === undefined ? 20 : Number(q.limit), after: q.after };
}
