// What the insight rules read and what they return. insights/insight-facts.ts builds a MessageFacts
// from an email as stored; the delivery job builds a DeliveryFacts from the first result.
// No module above this one is imported here: insights know messages and SMTP replies, not accounts.

export type Severity = 'error' | 'warning' | 'info';

/** One piece of advice about one email, as stored with it and served by GET /emails/:id/insights. */
export interface Finding {
  id: string;
  severity: Severity;
  title: string;
  detail: string;
  fix: string;
}

export interface MailboxFacts {
  address: string;
  name?: string;
}

/** An email as composed: its addresses, subject, bodies, headers and where it is sent from. */
export interface MessageFacts {
  from: MailboxFacts;
  replyTo: MailboxFacts[];
  subject: string;
  /** the HTML as the caller gave it (links not yet rewritten by click tracking) */
  html?: string;
  /** bytes of the HTML recipients get (after tracking rewrites), for Gmail's clipping limit */
  htmlBytes: number;
  /** the text part as given; undefined with `textGenerated` when Mailroom derives it from the HTML */
  text?: string;
  /** true when Mailroom writes the text part from the HTML (API sends without `text`) */
  textGenerated: boolean;
  /** caller headers, names as given */
  headers: Record<string, string>;
  /** the verified sending domain (the From domain) */
  sendingDomain: string;
  /** hosts that serve this domain's tracking (MAILROOM_PUBLIC_URL's host, the tracking subdomain) */
  trackingHosts: string[];
  /** sent to a contact list: a broadcast, an automation step or a topic */
  listMail: boolean;
  /** Mailroom adds RFC 8058 List-Unsubscribe headers to each recipient's copy at delivery */
  listUnsubscribeAdded: boolean;
  /** the DKIM signatures the message will carry: signing domain and whether its key is published */
  dkim: { domain: string; published: boolean }[];
}

/** The first result of delivering an email that was not a plain success. */
export interface DeliveryFacts {
  status: 'deferred' | 'bounced';
  /** the receiver's reply, or our reason for a failure before any reply (DNS, connection) */
  response: string;
  code?: number;
  enhanced?: string;
  category?: string;
  recipient: string;
  /** the From domain, named in the advice */
  sendingDomain: string;
}

/** What a rule says when it fires: the rule's id and severity are added by the runner. */
export interface Verdict {
  title?: string; // defaults to the rule's title
  detail: string;
  fix?: string; // defaults to the rule's fix
}
