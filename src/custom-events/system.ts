// System events: Mailroom's own happenings under the reserved `resend:` prefix, usable as an
// automation's trigger or wait like custom events. They are recorded by the database trigger of
// migration 0025 (automations_record_system_events), in the transaction of the happening, only
// while an automation of the team listens for the name (automations.listens). Their payload is the
// webhook `data` of the same event (resend-compat 9.3); their contact is the email's recipient or
// the contact itself.
import { RESERVED_PREFIX } from './schema.js';

export const SYSTEM_EVENTS = [
  'resend:contact.created',
  'resend:contact.updated',
  'resend:email.sent',
  'resend:email.delivered',
  'resend:email.delivery_delayed',
  'resend:email.opened',
  'resend:email.clicked',
  'resend:email.bounced',
  'resend:email.complained',
  'resend:email.failed',
  'resend:email.suppressed',
] as const;
const KNOWN = new Set<string>(SYSTEM_EVENTS);

export const isReservedEventName = (name: string): boolean => name.startsWith(RESERVED_PREFIX);
export const isSystemEvent = (name: string): boolean => KNOWN.has(name);
