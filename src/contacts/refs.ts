// Fields of a contact body that a PATCH /contacts cannot change: memberships and subscriptions have
// their own endpoints. Refused by name, never ignored.
import { invalidField } from '../errors.js';

export function refuseMembershipFields(body: Record<string, unknown>): void {
  const present = (k: string) => body[k] !== undefined && body[k] !== null;
  if (present('segments') || present('audience_id'))
    throw invalidField(
      present('segments') ? 'segments' : 'audience_id',
      'change memberships with POST or DELETE /contacts/:id/segments/:segment_id.',
    );
  if (present('topics')) throw invalidField('topics', 'change subscriptions with PATCH /contacts/:id/topics.');
}
