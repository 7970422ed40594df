// The event names an endpoint may subscribe to: every WebhookEvent of the `resend` SDK (so SDK
// callers pass validation unchanged). Mailroom emits the email.*, contact.created|updated|deleted,
// domain.created|updated|deleted and suppression.added|removed ones today; the others are accepted so that subscriptions made now start receiving them when their sources exist.
export const WEBHOOK_EVENT_TYPES = [
  'email.sent', 'email.scheduled', 'email.delivered', 'email.delivery_delayed', 'email.complained', 'email.bounced',
  'email.opened', 'email.clicked', 'email.received', 'email.failed', 'email.suppressed',
  'contact.created', 'contact.updated', 'contact.deleted', 'contact.topics.updated',
  'domain.created', 'domain.updated', 'domain.deleted', 'suppression.added', 'suppression.removed',
  'topic.created', 'topic.updated', 'topic.deleted',
  'inbox.created', 'inbox.updated', 'inbox.deleted', 'inbox.thread.created', 'inbox.thread.folder.updated',
  'inbox.thread.assigned', 'inbox.thread.unassigned', 'inbox.thread.labels.updated', 'inbox.email.received',
  'inbox.email.sent', 'inbox.draft.created', 'inbox.draft.updated', 'inbox.draft.sent', 'inbox.draft.deleted',
] as const;

const KNOWN = new Set<string>(WEBHOOK_EVENT_TYPES);
export const isWebhookEventType = (t: string): boolean => KNOWN.has(t);
