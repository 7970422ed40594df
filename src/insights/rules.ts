// THE table of insight rules. Each entry: id (stable, in the API), severity, title, fix, a short
// justification (why receivers care), the stage it runs at, and a check that returns a Verdict
// when the rule fires. Adding a rule is adding one entry here and its test in
// test/insights/rules.test.ts (a bad example it fires on, a good one it does not).
// Checks are pure and cheap: the compose stage runs off the request path (the delivery job's first
// attempt, insights/compose-insights.ts), measured in bench/insights.ts.
import { explainReply } from './explain-reply.js';
import { aligned, isIpHost, isRealDomain, orgDomain, wordsOf, type HtmlScan } from './html-scan.js';
import type { DeliveryFacts, MessageFacts, Severity, Verdict } from './types.js';

/** The message and its HTML scanned once for all compose rules. */
export interface ComposeInput {
  m: MessageFacts;
  html: HtmlScan | undefined;
}

interface RuleBase {
  id: string;
  severity: Severity;
  title: string;
  fix: string;
  why: string;
}
export type Rule =
  | (RuleBase & { stage: 'compose'; check(i: ComposeInput): Verdict | undefined })
  | (RuleBase & { stage: 'delivery'; check(f: DeliveryFacts): Verdict | undefined });

const GMAIL_CLIP_BYTES = 102 * 1024;
const SHORTENERS = new Set([
  'bit.ly',
  'bitly.com',
  'tinyurl.com',
  't.co',
  'goo.gl',
  'ow.ly',
  'is.gd',
  'buff.ly',
  'rebrand.ly',
  'cutt.ly',
  'shorturl.at',
  'tiny.cc',
  'bl.ink',
  't.ly',
  'rb.gy',
  's.id',
  'lnkd.in',
  'v.gd',
  'shorte.st',
  'adf.ly',
  'tr.im',
  'qr.ae',
  'x.co',
  'db.tt',
  'clck.ru',
]);
const NO_REPLY =
  /^(?:no[-_.]?reply|do[-_.]?not[-_.]?reply|dont[-_.]?reply|noreply-[\w-]*|no[-_.]?respon[ds]e?)(?:[+-][^@]*)?@/i;
const SPAM_TRIGGERS =
  /\b(?:100% free|free!|act now|limited time(?: offer)?|click here|you(?:'ve| have) (?:won|been selected)|winner|risk[- ]free|no cost|cash bonus|guaranteed|earn (?:\$|money)|make money|double your|lowest price|viagra|casino|urgent(?:ly)?|congratulations|100% satisfied|once in a lifetime|order now|buy now)\b|\${2,}|!{2,}|\?{3,}|^\s*(?:re|fwd?):\s*$/i;
const VIEW_IN_BROWSER =
  /view (?:this|the|it) (?:e-?mail|message|newsletter)? ?(?:in|on) (?:a|your) (?:web )?browser|(?:does not|doesn't|cannot|can't) (?:support|display|read) html|html (?:version|e-?mail)/i;
const DOMAIN_IN_NAME = /(?:^|[^\w@.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24})(?![\w-])/gi;
// Two plain patterns, not one alternation: V8 scans a 16 KB body 4x faster for a single literal.
const offersUnsubscribe = (s: string) => /unsubscribe/i.test(s) || /opt[- ]?out\b/i.test(s);

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const list = (items: string[], max = 5) =>
  items.slice(0, max).join(', ') + (items.length > max ? ` and ${items.length - max} more` : '');
const header = (m: MessageFacts, name: string) =>
  Object.entries(m.headers).find(([k]) => k.toLowerCase() === name)?.[1];
/** Hosts that are the sender's own: its organizational domain, and the tracking hosts. */
const ownHost = (m: MessageFacts, host: string) =>
  aligned(host, m.sendingDomain) || m.trackingHosts.some((t) => t === host || aligned(t, host));

export const RULES: Rule[] = [
  {
    id: 'text-part-missing',
    stage: 'compose',
    severity: 'warning',
    title: 'No plain-text part',
    why: 'HTML-only mail scores as spam in SpamAssassin (MIME_HTML_ONLY) and reads badly in text clients and screen readers.',
    fix: 'Give a `text` version, or omit `text` and Mailroom writes one from the HTML.',
    check: ({ m }) =>
      m.html && !m.textGenerated && !m.text?.trim()
        ? { detail: 'The email has an HTML part and no plain-text alternative.' }
        : undefined,
  },
  {
    id: 'text-part-poor',
    stage: 'compose',
    severity: 'warning',
    title: 'The text part is a poor copy of the HTML',
    why: 'Filters compare the two alternatives: a text part that says little of what the HTML says (or only "view in browser") looks like a spam template.',
    fix: 'Write the text part from the same content as the HTML, or omit `text` and Mailroom derives it from the HTML.',
    check: ({ m, html }) => {
      if (!html || m.textGenerated || !m.text?.trim()) return undefined;
      const htmlWords = html.visibleWords;
      if (htmlWords.size < 10) return undefined;
      const textWords = wordsOf(m.text);
      let shared = 0;
      for (const w of htmlWords) if (textWords.has(w)) shared++;
      const share = shared / htmlWords.size;
      if (share >= 0.4 && !(VIEW_IN_BROWSER.test(m.text) && m.text.length < 300)) return undefined;
      return {
        detail: `The text part carries ${Math.round(share * 100)}% of the words of the HTML part${VIEW_IN_BROWSER.test(m.text) ? ' and asks the reader to view the HTML instead' : ''}.`,
      };
    },
  },
  {
    id: 'html-clipped',
    stage: 'compose',
    severity: 'warning',
    title: 'Gmail will clip this email',
    why: 'Gmail shows only the first 102 KB of HTML and hides the rest (including the unsubscribe link and the open pixel) behind "View entire message".',
    fix: 'Bring the HTML under 102 KB: inline less CSS, remove comments and unused markup, link to content instead of including it.',
    check: ({ m }) =>
      m.htmlBytes > GMAIL_CLIP_BYTES
        ? { detail: `The HTML is ${Math.round(m.htmlBytes / 1024)} KB; Gmail clips after 102 KB.` }
        : undefined,
  },
  {
    id: 'link-domain-mismatch',
    stage: 'compose',
    severity: 'info',
    title: 'Links point to other domains',
    why: "Receivers weigh links whose domain differs from the sender's; a domain with its own reputation problems taints the message.",
    fix: 'Link to pages on your sending domain where you can (a subdomain such as go.your-domain redirecting elsewhere is fine).',
    check: ({ m, html }) => {
      const others = [...new Set((html?.linkHosts ?? []).filter((h) => !ownHost(m, h) && !isIpHost(h)).map(orgDomain))];
      return others.length
        ? { detail: `Links go to ${plural(others.length, 'domain')} other than ${m.sendingDomain}: ${list(others)}.` }
        : undefined;
    },
  },
  {
    id: 'link-shortener',
    stage: 'compose',
    severity: 'warning',
    title: 'Links use a URL shortener',
    why: 'Public shorteners hide the destination and are shared with spammers: their domains are often on URI blocklists (Spamhaus DBL, SURBL).',
    fix: 'Link to the destination itself, or shorten with a domain of your own.',
    check: ({ html }) => {
      const hits = [
        ...new Set((html?.linkHosts ?? []).filter((h) => SHORTENERS.has(h) || SHORTENERS.has(orgDomain(h)))),
      ];
      return hits.length ? { detail: `Shortened links via ${list(hits)}.` } : undefined;
    },
  },
  {
    id: 'link-raw-ip',
    stage: 'compose',
    severity: 'error',
    title: 'Links point to a raw IP address',
    why: 'Links to numeric hosts are a classic phishing sign: SpamAssassin (NUMERIC_HTTP_ADDR) and Gmail penalise them.',
    fix: 'Link to a host name on your domain instead of an IP address.',
    check: ({ html }) => {
      const hits = [...new Set((html?.linkHosts ?? []).filter(isIpHost))];
      return hits.length ? { detail: `Links to ${list(hits)}.` } : undefined;
    },
  },
  {
    id: 'image-external-host',
    stage: 'compose',
    severity: 'warning',
    title: 'Images are hosted on another domain',
    why: 'Images load from the host in the src: a host other than your own ties your mail to its reputation and leaks opens to it.',
    fix: 'Serve images from your sending domain (or a subdomain of it) or attach them inline (cid:).',
    check: ({ m, html }) => {
      const others = (html?.imageHosts ?? []).filter((h) => !ownHost(m, h));
      return others.length ? { detail: `Images load from ${list(others)}, not from ${m.sendingDomain}.` } : undefined;
    },
  },
  {
    id: 'image-missing-alt',
    stage: 'compose',
    severity: 'info',
    title: 'Images have no alt text',
    why: 'Most clients block images until the reader allows them, and screen readers read the alt text: without it the message is blank or unreadable.',
    fix: 'Give every meaningful image an `alt` attribute (alt="" for decorative ones).',
    check: ({ html }) => {
      const missing = (html?.images ?? []).filter((i) => i.alt === undefined).length;
      return missing ? { detail: `${plural(missing, 'image')} without an alt attribute.` } : undefined;
    },
  },
  {
    id: 'image-only',
    stage: 'compose',
    severity: 'error',
    title: 'The body is only images',
    why: 'Filters cannot read text in images, so image-only mail is a known spam pattern; with images blocked the reader sees nothing.',
    fix: 'Put the message in text, and use images to illustrate it (aim for at least 60% text).',
    check: ({ html }) => {
      if (!html?.images.length) return undefined;
      const words = html.wordsUpTo(5);
      return words < 5
        ? { detail: `The HTML shows ${plural(html.images.length, 'image')} and ${plural(words, 'word')} of text.` }
        : undefined;
    },
  },
  {
    id: 'no-reply-address',
    stage: 'compose',
    severity: 'warning',
    title: 'A no-reply address',
    why: 'Replies are a positive engagement signal to mailbox providers; a no-reply sender discards them and pushes readers to the spam button.',
    fix: 'Send from (or set Reply-To to) an address that a person or a ticketing system reads.',
    check: ({ m }) => {
      const hits = [m.from, ...m.replyTo].filter((a) => NO_REPLY.test(a.address));
      if (!hits.length) return undefined;
      const replyable = m.replyTo.length > 0 && m.replyTo.every((a) => !NO_REPLY.test(a.address));
      if (replyable) return undefined; // a no-reply From with a real Reply-To is fine
      return { detail: `${list(hits.map((a) => a.address))} ${hits.length === 1 ? 'does' : 'do'} not take replies.` };
    },
  },
  {
    id: 'list-unsubscribe-missing',
    stage: 'compose',
    severity: 'warning',
    title: 'No List-Unsubscribe header',
    why: 'Gmail and Yahoo require one-click unsubscribe (RFC 8058) on bulk mail since February 2024; without it readers report spam instead.',
    fix: 'Send list mail with a `topic_id` (or as a broadcast) so Mailroom adds one-click unsubscribe, or set List-Unsubscribe and List-Unsubscribe-Post headers.',
    check: ({ m, html }) => {
      if (m.listUnsubscribeAdded || header(m, 'list-unsubscribe')) return undefined;
      if (m.listMail) return { detail: 'The email goes to a contact list but carries no List-Unsubscribe header.' };
      const looksBulk =
        (m.text !== undefined && offersUnsubscribe(m.text)) || (m.html !== undefined && offersUnsubscribe(m.html));
      return looksBulk
        ? {
            detail:
              'The body offers an unsubscribe link, so receivers treat it as bulk mail, but it has no List-Unsubscribe header.',
          }
        : undefined;
    },
  },
  {
    id: 'subject-all-caps',
    stage: 'compose',
    severity: 'warning',
    title: 'The subject is in capitals',
    why: 'An all-caps subject is a spam signal (SpamAssassin SUBJ_ALL_CAPS) and reads as shouting.',
    fix: 'Write the subject in sentence case.',
    check: ({ m }) => {
      const letters = m.subject.replace(/[^\p{L}]/gu, '');
      return letters.length >= 6 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()
        ? { detail: `"${m.subject}" has no lower-case letters.` }
        : undefined;
    },
  },
  {
    id: 'subject-spam-trigger',
    stage: 'compose',
    severity: 'warning',
    title: 'The subject looks like spam',
    why: 'Phrases and punctuation typical of spam ("act now", "$$$", "!!!") raise content filter scores.',
    fix: 'Say plainly what the email is about, without urgency phrases or repeated punctuation.',
    check: ({ m }) => {
      const hit = SPAM_TRIGGERS.exec(m.subject);
      return hit ? { detail: `The subject contains "${hit[0].trim() || m.subject}".` } : undefined;
    },
  },
  {
    id: 'from-name-domain',
    stage: 'compose',
    severity: 'error',
    title: 'The From name looks like another domain',
    why: 'A display name showing a domain or address other than the real sender is how phishing impersonates brands; Gmail and Outlook flag it.',
    fix: 'Use a plain name in the From display name ("Acme Billing"), or only your own sending domain.',
    check: ({ m }) => {
      const name = m.from.name ?? '';
      const foreign = [...name.matchAll(DOMAIN_IN_NAME)]
        .map((x) => x[1].toLowerCase())
        .filter((dom) => isRealDomain(dom) && !aligned(dom, m.sendingDomain));
      const email = /[\w.+-]+@([\w-]+(?:\.[\w-]+)+)/.exec(name);
      if (email && !aligned(email[1].toLowerCase(), m.sendingDomain)) foreign.push(email[0]);
      return foreign.length
        ? {
            detail: `The display name "${name}" shows ${list([...new Set(foreign)])}, but the mail comes from ${m.sendingDomain}.`,
          }
        : undefined;
    },
  },
  {
    id: 'dkim-not-aligned',
    stage: 'compose',
    severity: 'error',
    title: 'DKIM is not aligned with the From domain',
    why: 'DMARC passes only when SPF or DKIM passes for the From domain; Gmail and Yahoo require it of bulk senders, and the return path alone cannot always align.',
    fix: 'Sign with the From domain: publish (again) the DKIM record Mailroom shows for the domain and verify it.',
    check: ({ m }) => {
      const from = m.from.address.slice(m.from.address.lastIndexOf('@') + 1).toLowerCase();
      const good = m.dkim.filter((k) => k.published && aligned(k.domain.toLowerCase(), from));
      if (good.length) return undefined;
      if (!m.dkim.length) return { detail: `The email is not DKIM-signed for ${from}.` };
      const unpublished = m.dkim.filter((k) => !k.published);
      return unpublished.length
        ? {
            detail: `The DKIM key of ${list(unpublished.map((k) => k.domain))} is not found in DNS now: receivers cannot verify the signature, so DKIM does not align for ${from}.`,
          }
        : {
            detail: `The email is signed by ${list(m.dkim.map((k) => k.domain))}, which is not aligned with the From domain ${from}.`,
          };
    },
  },
  {
    id: 'receiver-rejected',
    stage: 'delivery',
    severity: 'error',
    title: 'The receiver rejected the email',
    why: 'A permanent refusal says what the receiver wants; the same cause usually hits every recipient at that provider.',
    fix: 'See the explanation of the reply.',
    check: (f) => {
      if (f.status !== 'bounced') return undefined;
      const e = explainReply(f);
      return { title: e.title, detail: `${f.recipient}: "${f.response}": ${e.meaning}.`, fix: e.fix };
    },
  },
  {
    id: 'receiver-deferred',
    stage: 'delivery',
    severity: 'warning',
    title: 'The receiver deferred the email',
    why: 'A temporary refusal is retried, but its reason (rate limits, reputation, greylisting) tells how the receiver sees this sender.',
    fix: 'See the explanation of the reply.',
    check: (f) => {
      if (f.status !== 'deferred') return undefined;
      const e = explainReply(f);
      return {
        title: e.title,
        detail: `${f.recipient}: "${f.response}": ${e.meaning}. Mailroom retries for 72 hours.`,
        fix: e.fix,
      };
    },
  },
];

/** Ids of the rules that run on the first delivery result (each email gets at most one of them). */
export const DELIVERY_RULE_IDS = RULES.filter((r) => r.stage === 'delivery').map((r) => r.id);
