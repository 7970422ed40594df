// The compose findings of an email (insights/rules.ts), computed OFF the request path from the
// email as stored: by the delivery job at the email's first attempt (stored with its result),
// or by GET /emails/:id/insights when asked before that (a scheduled or canceled email). The send
// path only stores the email with `insights` null ("not analyzed yet"): measured, the rules cost
// ~100-550 us of CPU for a 16-88 KB newsletter, over the 100 us budget for the request
// path (BENCHMARKS.md, insights).
import type { Config } from '../config/schema.js';
import type { DomainRow } from '../store/domains.js';
import { inspectMessage } from './inspect.js';
import type { Finding } from './types.js';
import { trackedHtml } from '../tracking/tracked-html.js';
import type { TrackingSigner } from '../tracking/tokens.js';
import type { UnsubscribeSigner } from '../tracking/unsubscribe-tokens.js';
import { parseAddress } from '../mime/addresses.js';
import { messageFacts } from './insight-facts.js';

/** What an email's row holds that the compose rules read. */
export interface StoredEmailFacts {
  id: string;
  source: string;
  from_header: string;
  reply_to: string[];
  subject: string;
  html: string | null;
  text_body: string | null;
  headers: { name: string; value: string }[] | null;
  list_unsubscribe: boolean;
}

export class ComposeInsights {
  private readonly trackingHost: string;

  constructor(
    private readonly config: Config,
    private readonly tracking?: TrackingSigner,
    private readonly unsubscribe?: UnsubscribeSigner,
  ) {
    this.trackingHost = new URL(config.publicUrl).hostname.toLowerCase();
  }

  /**
   * The findings of a stored email. `domain` is its sending domain's row, or undefined when the
   * domain is no longer usable (then only its name is known and its DKIM key counts as unpublished).
   */
  of(
    e: StoredEmailFacts,
    domain:
      | Pick<DomainRow, 'name' | 'tracking_subdomain' | 'record_status' | 'open_tracking' | 'click_tracking'>
      | undefined,
  ): Finding[] {
    const from = parseAddress(e.from_header, 'from');
    const headers = Object.fromEntries((e.headers ?? []).map((h) => [h.name, h.value]));
    const d = domain ?? {
      name: from.domain,
      tracking_subdomain: null,
      record_status: {},
      open_tracking: false,
      click_tracking: false,
    };
    const html = e.html ?? undefined;
    const listMail = e.list_unsubscribe;
    const prebuilt = e.source === 'smtp'; // SMTP clients send their own MIME: a missing text part is missing
    // Click tracking lengthens every link: Gmail clips the HTML recipients get, not the one given.
    const sent =
      html !== undefined && !prebuilt
        ? (trackedHtml({
            id: e.id,
            html,
            headers,
            domain: d,
            publicUrl: this.config.publicUrl,
            sign: this.tracking,
            ownUnsubscribeUrl: listMail && this.unsubscribe ? this.unsubscribe.url(e.id, 0) : undefined,
          }) ?? html)
        : html;
    return inspectMessage(
      messageFacts(
        {
          from,
          replyTo: e.reply_to.map((a) => ({ address: a })),
          subject: e.subject,
          html,
          text: e.text_body ?? undefined,
          headers,
        },
        d as DomainRow,
        {
          trackingHost: this.trackingHost,
          listMail,
          listUnsubscribeAdded: listMail && this.unsubscribe !== undefined,
          sentHtml: sent,
          prebuilt,
        },
      ),
    );
  }
}
