// One broadcast's message, compiled once (render/personalize.ts) and turned into each
// recipient's send request: personalized subject, html (with the preview text as a hidden
// preheader) and text, the Feedback-ID header for mailbox providers' complaint loops, and the
// List-Id. {{{RESEND_UNSUBSCRIBE_URL}}} is left for the send path, which knows the email's id.
import { compile, render, type Compiled, type Recipient } from '../render/personalize.js';
import { parseAddress, parseAddressList, type Address } from '../mime/addresses.js';
import type { SendRequest } from '../emails/validate.js';
import { htmlToText } from '../mime/html-to-text.js';
import type { BroadcastRow } from '../store/broadcasts.js';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A hidden preheader: what inboxes show beside the subject (and no reader sees in the body). */
const preheader = (s: string) =>
  `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all">${s.replace(/[&<>"']/g, (c) => ESC[c])}</div>`;

/** What a broadcast email keeps (emails.personalization): its recipient's values, and the domain's tracking at expansion. */
export interface Personalization {
  email?: string;
  first_name?: string;
  last_name?: string;
  properties?: Record<string, string | number>;
  open_tracking?: true;
  click_tracking?: true;
}

export class BroadcastMessage {
  readonly from: Address;
  private readonly replyTo: Address[];
  /** reply_to as an email row keeps it */
  readonly replyToAddresses: string[];
  private readonly subject: Compiled;
  private readonly html?: Compiled;
  private readonly text?: Compiled;
  /** RFC 2919: the list is the topic (else the segment), so receivers group a list's broadcasts. */
  readonly listId: string;
  private readonly feedbackId: string;
  /** The contact fields and properties the subject, html and text use: all an email keeps of its recipient. */
  private readonly fields: ('email' | 'first_name' | 'last_name')[];
  private readonly properties: string[];

  constructor(
    readonly b: BroadcastRow,
    private readonly propertyFallbacks: Record<string, string | number | null>,
  ) {
    this.from = parseAddress(b.from_header!, 'from');
    this.replyTo = b.reply_to?.length ? parseAddressList(b.reply_to, 'reply_to') : [];
    this.replyToAddresses = this.replyTo.map((a) => a.address);
    this.subject = compile(b.subject ?? '', { html: false });
    if (b.html !== null)
      this.html = compile(b.preview_text ? preheader(b.preview_text) + b.html : b.html, { html: true });
    // Without a text part, the send path would derive one from each recipient's html (~0.5 ms per
    // 3 KB message, measured: a third of a recipient's cost); derived once here from the html
    // as written, its tags survive as text and are personalized like a written text part.
    if (b.text_body !== null) this.text = compile(b.text_body, { html: false });
    else if (b.html !== null) this.text = compile(htmlToText(b.html), { html: false });
    const ascii = (b.name || '')
      .replace(/[^\x20-\x7e]|["\\]/g, '')
      .trim()
      .slice(0, 100);
    this.listId = `${ascii ? `"${ascii}" ` : ''}<${(b.topic_id ?? b.segment_id ?? b.id).replace(/-/g, '')}.${this.from.domain}>`;
    // Gmail's Feedback Loop reads up to four colon-separated fields, the last the sender's id.
    this.feedbackId = `${b.id}:${b.team_id}:broadcast:mailroom`;
    const slots = [this.subject, this.html, this.text].flatMap((c) => c?.slots ?? []);
    this.fields = [...new Set(slots.flatMap((s) => (s.kind === 'field' ? [s.field] : [])))];
    this.properties = [...new Set(slots.flatMap((s) => (s.kind === 'property' ? [s.key] : [])))];
  }

  /**
   * What a broadcast email keeps of its recipient (emails.personalization): the values the message
   * uses, so that rendering it later (delivery, GET /emails/:id) gives what the contact was at expansion.
   */
  personalizationOf(
    contact: Recipient,
    tracking: { open_tracking: boolean; click_tracking: boolean },
  ): Personalization {
    const p: Personalization = {};
    if (tracking.open_tracking) p.open_tracking = true;
    if (tracking.click_tracking) p.click_tracking = true;
    for (const f of this.fields) if (contact[f] !== undefined && contact[f] !== null) p[f] = contact[f];
    if (this.properties.length) {
      const props: Record<string, string | number> = {};
      for (const k of this.properties) {
        const v = contact.properties?.[k];
        if (v !== undefined && v !== null) props[k] = v;
      }
      p.properties = props;
    }
    return p;
  }

  /** The recipient as the renderer reads it back from an email's address and personalization. */
  static recipientOf(address: string, p: Personalization): Recipient {
    return {
      email: address,
      ...(p.email !== undefined ? { email: p.email } : {}),
      first_name: p.first_name,
      last_name: p.last_name,
      properties: p.properties,
    };
  }

  /** One recipient's subject (kept on the email row: lists and events show it). */
  subjectFor(contact: Recipient): string {
    return render(this.subject, { contact, propertyFallbacks: this.propertyFallbacks }).replace(/[\r\n]+/g, ' ');
  }

  /** The headers every recipient's email carries (as an email row keeps them). */
  headers(): { name: string; value: string }[] {
    return [{ name: 'Feedback-ID', value: this.feedbackId }];
  }

  /** The send request for one recipient (no `to` parse error: contacts' addresses were checked on the way in, but the caller catches). */
  requestFor(contact: Recipient, opts: { test?: boolean } = {}): SendRequest {
    const ctx = { contact, propertyFallbacks: this.propertyFallbacks };
    return {
      from: this.from,
      to: [parseAddress(contact.email)],
      cc: [],
      bcc: [],
      replyTo: this.replyTo,
      subject: this.subjectFor(contact),
      ...(this.html ? { html: render(this.html, ctx) } : {}),
      ...(this.text ? { text: render(this.text, ctx) } : {}),
      headers: { 'Feedback-ID': this.feedbackId, ...(opts.test ? { 'X-Mailroom-Test-Send': 'true' } : {}) },
      attachments: [],
      tags: [],
      ...(this.b.topic_id && !opts.test ? { topicId: this.b.topic_id } : {}),
    };
  }
}
