// THE list of event types, once: what Mailroom records in the outbox (`email_events`) and what a
// webhook endpoint may subscribe to. `public` types are Resend's names (every WebhookEvent of the
// `resend` SDK, so SDK callers pass validation unchanged) and reach webhooks; `internal` ones are
// kept on an email's timeline only. `emitted` says whether Mailroom produces it today: the others
// are accepted in subscriptions so that they start arriving when their features exist. Custom
// events (POST /events/send, for automations) are a second kind and do not belong to this list.
// Imports nothing: every layer may use it.

interface Spec {
  public: boolean;
  emitted: boolean;
}
const pub = (emitted = true): Spec => ({ public: true, emitted });
const internal: Spec = { public: false, emitted: true };

export const EVENT_TYPES = {
  // The life of an outbound email (resend-compat 9.3).
  'email.sent': pub(),
  'email.scheduled': pub(),
  'email.delivered': pub(),
  'email.delivery_delayed': pub(),
  'email.complained': pub(),
  'email.bounced': pub(),
  'email.opened': pub(),
  'email.clicked': pub(),
  'email.failed': pub(),
  'email.suppressed': pub(),
  // Inbound mail.
  'email.received': pub(),
  // On an email's timeline only.
  'email.canceled': internal,
  'email.delivery_attempt': internal,
  'email.auto_replied': internal,
  'email.report_ignored': internal,
  'email.unsubscribed': internal,
  // A team's resources.
  'contact.created': pub(),
  'contact.updated': pub(),
  'contact.deleted': pub(),
  'contact.topics.updated': pub(false),
  'domain.created': pub(),
  'domain.updated': pub(),
  'domain.deleted': pub(),
  'suppression.added': pub(),
  'suppression.removed': pub(),
  'topic.created': pub(),
  'topic.updated': pub(),
  'topic.deleted': pub(),
  'inbox.created': pub(),
  'inbox.updated': pub(),
  'inbox.deleted': pub(),
  'inbox.thread.created': pub(),
  'inbox.thread.folder.updated': pub(),
  'inbox.thread.assigned': pub(),
  'inbox.thread.unassigned': pub(),
  'inbox.thread.labels.updated': pub(),
  'inbox.email.received': pub(),
  'inbox.email.sent': pub(),
  'inbox.draft.created': pub(),
  'inbox.draft.updated': pub(),
  'inbox.draft.sent': pub(),
  'inbox.draft.deleted': pub(),
} as const satisfies Record<string, Spec>;

export type EventType = keyof typeof EVENT_TYPES;
export type EmailEventType = Extract<EventType, `email.${string}`>;

/** The types a webhook endpoint may subscribe to (Resend's names). */
export const WEBHOOK_EVENT_TYPES = (Object.keys(EVENT_TYPES) as EventType[]).filter((t) => EVENT_TYPES[t].public);

const SUBSCRIBABLE = new Set<string>(WEBHOOK_EVENT_TYPES);
export const isWebhookEventType = (t: string): boolean => SUBSCRIBABLE.has(t);
