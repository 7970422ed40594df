// Reading the request log (GET /logs, /logs/:id): the checks on ids and filters, then the SQL
// in store/request-logs.ts. Writing is recorder.ts's.
import { AppError, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import { requestLogFind, requestLogList } from '../store/request-logs.js';

export async function requestLogGet(db: Queryable, teamId: string, id: string) {
  if (!isUuid(id)) throw new AppError('invalid_parameter', 'The `logId` must be a valid UUID.');
  const log = await requestLogFind(db, teamId, id);
  if (!log) throw notFound('Log');
  return log;
}

export async function requestLogsList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  q: { status?: string; endpoint?: string; method?: string; api_key_id?: string },
) {
  if (q.status !== undefined && !/^(\d{3}|[1-5]xx)$/i.test(q.status))
    throw new AppError(
      'validation_error',
      'Invalid `status` parameter: must be an HTTP status code (404) or a class (4xx).',
    );
  const cls = q.status && /xx$/i.test(q.status) ? Number(q.status[0]) : undefined;
  if (q.api_key_id !== undefined && !isUuid(q.api_key_id))
    throw new AppError('invalid_parameter', 'The `api_key_id` must be a valid UUID.');
  return requestLogList(db, teamId, page, {
    status: q.status && cls === undefined ? Number(q.status) : undefined,
    statusClass: cls,
    endpoint: q.endpoint,
    method: q.method?.toUpperCase(),
    apiKeyId: q.api_key_id,
  });
}
