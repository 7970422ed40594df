// What the insight rules read about an email (insights/types.ts MessageFacts), from an email
// as stored and the domain it is sent from. Pure; called once per email, off the request path
// (insights/compose-insights.ts).
import type { MailboxFacts, MessageFacts } from './types.js';
import type { DomainRow } from '../store/domains.js';

/** The parts of an email the rules read: a validated request, or an email as stored. */
export interface MessageParts {
  from: MailboxFacts;
  replyTo: MailboxFacts[];
  subject: string;
  html?: string;
  text?: string;
  headers: Record<string, string>;
}

export interface FactsContext {
  /** MAILROOM_PUBLIC_URL's host: tracking links and pixels live there */
  trackingHost: string;
  listMail: boolean;
  /** Mailroom will add one-click unsubscribe headers at delivery */
  listUnsubscribeAdded: boolean;
  /** the HTML recipients get, after tracking rewrites */
  sentHtml: string | undefined;
  /** the client composed the MIME itself (SMTP): a missing text part is missing, not generated */
  prebuilt: boolean;
}

type DomainFacts = Pick<DomainRow, 'name' | 'tracking_subdomain' | 'record_status'>;

export function messageFacts(req: MessageParts, domain: DomainFacts, c: FactsContext): MessageFacts {
  const trackingHosts = [c.trackingHost];
  if (domain.tracking_subdomain) trackingHosts.push(`${domain.tracking_subdomain}.${domain.name}`.toLowerCase());
  return {
    from: req.from,
    replyTo: req.replyTo,
    subject: req.subject,
    html: req.html,
    htmlBytes: c.sentHtml === undefined ? 0 : Buffer.byteLength(c.sentHtml),
    text: req.text,
    textGenerated: !c.prebuilt && req.text === undefined && req.html !== undefined,
    headers: req.headers,
    sendingDomain: domain.name.toLowerCase(),
    trackingHosts,
    listMail: c.listMail,
    listUnsubscribeAdded: c.listUnsubscribeAdded,
    // Mailroom signs with the sending domain's key (the From domain); receivers can verify it only while the record is published.
    dkim: [{ domain: domain.name, published: domain.record_status.dkim?.status === 'verified' }],
  };
}
