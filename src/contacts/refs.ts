// Segments (ex-audiences) are not built yet, so no request can name one that exists (topics are:
// contacts/topics.ts).
// These checks answer such references with a clear error instead of ignoring them; they become
// lookups when segments and topics land.
import { AppError, invalidField } from '../errors.js';
import { shown } from '../emails/addresses.js';

const NOT_YET = 'Mailroom does not have segments or audiences yet.';

function ids(field: string, v: unknown, withSubscription: boolean): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalidField(field, 'must be an array.');
  return v.map((x, i) => {
    // Segments arrive as [{id}] on the wire and as string[] in the OpenAPI document: both are accepted.
    const id = typeof x === 'string' && !withSubscription ? x : (x as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' || !id) throw invalidField(`${field}[${i}].id`, 'must be a string.');
    const sub = (x as { subscription?: unknown }).subscription;
    if (withSubscription && sub !== 'opt_in' && sub !== 'opt_out') throw invalidField(`${field}[${i}].subscription`, 'must be "opt_in" or "opt_out".');
    return id;
  });
}

/** Refuses `segments` and `audience_id` in a contact body when they name anything. */
export function refuseUnknownRefs(body: Record<string, unknown>): void {
  const [segment] = ids('segments', body.segments, false);
  if (segment !== undefined) throw invalidField('segments', `no segment has the id ${shown(segment)}. ${NOT_YET}`);
  const audience = body.audience_id;
  if (audience !== undefined && audience !== null) {
    if (typeof audience !== 'string') throw invalidField('audience_id', 'must be a string.');
    throw invalidField('audience_id', `no audience has the id ${shown(audience)}. ${NOT_YET}`);
  }
}

/**
 * A path (`/audiences/:id/contacts`, `/segments/:id/contacts`) or a `segment_id` filter naming a
 * segment: Resend's 404, with why it cannot exist here.
 */
export const segmentNotFound = (what: 'Audience' | 'Segment'): AppError => new AppError('not_found', `${what} not found. ${NOT_YET}`);
