// GET /custom-events and /custom-events/names (Mailroom extensions for the dashboard's Events page):
// the team's recorded custom events, newest first, by name and/or contact (an id, or an address
// whether or not it is a contact yet), and the event names seen lately.
import { invalidField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { contactEmail } from '../contacts/input.js';
import { contactFind } from '../store/contacts.js';
import {
  customEventListRecent,
  customEventNamesRecent,
  RECENT_NAMES_WINDOW,
  type RecentEventsFilter,
} from '../store/custom-events-recent.js';
import type { Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';

const view = (e: {
  id: string;
  name: string;
  contact_id: string | null;
  email: string;
  payload: Record<string, unknown>;
  created_at: string;
}) => ({
  object: 'custom_event' as const,
  id: e.id,
  event: e.name,
  contact_id: e.contact_id,
  email: e.email,
  payload: e.payload,
  created_at: e.created_at,
});

export async function customEventsRecent(
  db: Queryable,
  teamId: string,
  q: { event?: string; contact?: string },
  page: PageQuery,
) {
  const f: RecentEventsFilter = {};
  if (q.event !== undefined && q.event !== '') {
    if (q.event.length > 200) throw invalidField('event', 'must be at most 200 characters.');
    f.name = q.event;
  }
  if (q.contact !== undefined && q.contact !== '') {
    if (isUuid(q.contact)) {
      const c = await contactFind(db, teamId, { id: q.contact.toLowerCase() });
      if (!c) throw notFound('Contact');
      f.contact = { id: c.id, email: c.email };
    } else {
      let email: string;
      try {
        email = contactEmail(q.contact);
      } catch {
        throw invalidField('contact', 'must be a contact id or an email address.');
      }
      const c = await contactFind(db, teamId, { email });
      if (c) f.contact = { id: c.id, email: c.email };
      else f.email = email;
    }
  }
  const p = await customEventListRecent(db, teamId, f, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map(view) };
}

export async function customEventNames(db: Queryable, teamId: string) {
  return { object: 'list' as const, window: RECENT_NAMES_WINDOW, data: await customEventNamesRecent(db, teamId) };
}
