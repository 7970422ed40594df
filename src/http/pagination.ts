// Parses Resend's pagination query (limit 1-100, after | before as item ids) into a PageQuery.
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { type PageQuery, pageOf } from '../store/paginate.js';

export type { PageQuery };
export { pageOf };

export const PageQuerySchema = Type.Object(
  {
    limit: Type.Optional(Type.String()),
    after: Type.Optional(Type.String()),
    before: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);

const LIMIT_MESSAGE =
  'The pagination limit must be a number between 1 and 100. See https://resend.com/docs/pagination for more information.';

/** `legacy` lists return everything when no limit is given; the others default to 20. */
export function parsePage(q: { limit?: string; after?: string; before?: string }, legacy: boolean): PageQuery {
  let limit: number | undefined;
  if (q.limit !== undefined) {
    if (!/^\d+$/.test(q.limit) || Number(q.limit) < 1 || Number(q.limit) > 100)
      throw new AppError('validation_error', LIMIT_MESSAGE);
    limit = Number(q.limit);
  } else if (!legacy || q.after || q.before) limit = 20;
  if (q.after !== undefined && q.before !== undefined) {
    throw new AppError(
      'validation_error',
      'The `after` and `before` parameters cannot be used together. See https://resend.com/docs/pagination for more information.',
    );
  }
  for (const k of ['after', 'before'] as const) {
    const v = q[k];
    if (v !== undefined && !isUuid(v))
      throw new AppError('validation_error', `The \`${k}\` cursor must be the id of an item in the list.`);
  }
  return { limit, after: q.after, before: q.before };
}

/** The query of a signed public link (the link is the credential; checked by the route, not the schema). */
export const SignedLinkQuery = Type.Object({
  expires: Type.Optional(Type.String()),
  signature: Type.Optional(Type.String()),
});

export const listBody = <T>(page: { has_more: boolean; data: T[] }) => ({
  object: 'list' as const,
  has_more: page.has_more,
  data: page.data,
});
