// Turns one SMTP reply into an outcome: delivered, defer (retry later) or bounce, with a bounce
// subType (Resend's values only: the OpenAPI WebhookEventBounce.subType enum, plus Suppressed),
// a category, and whether the recipient's address should be suppressed. Our own rules table,
// written from public provider replies (test/fixtures/bounce-corpus.ts); no SMTP I/O.
// What is refused because of US (our IP or domain on a blocklist, reputation, authentication,
// rate, relay, our sender address, policy or content) is never held against the recipient: only
// a recipient that does not exist (or a domain that does not) is suppressed. The vocabularies
// (English and 20 other languages) are in classify-vocab.ts.
import * as V from './classify-vocab.js';

export type BounceSubType =
  | 'General'
  | 'NoEmail'
  | 'MailboxFull'
  | 'MessageTooLarge'
  | 'ContentRejected'
  | 'AttachmentRejected'
  | 'Suppressed'
  | 'Undetermined';

/**
 * Categories whose permanent bounces suppress the recipient: the address or its domain does not
 * exist. Nothing else does: a reply we cannot read ('other') is not evidence against the address.
 */
const SUPPRESSING = new Set(['recipient', 'dns']);
export const suppressesRecipient = (category: string | undefined): boolean =>
  category !== undefined && SUPPRESSING.has(category);

export interface Classification {
  action: 'delivered' | 'defer' | 'bounce';
  subType: BounceSubType;
  category: string;
  retryAfterSeconds?: number;
}

export interface SmtpReply {
  code: number; // 0 when the reply carried no code
  enhanced?: string;
  text: string; // the reply without its leading code
}

const ENHANCED = /(?<![\d.])([245])\.(\d{1,3})\.(\d{1,3})(?![\d]|\.\d)/;

/** Finds an RFC 3463 enhanced status code (`5.1.1`) in a reply text, preferring one at the start. */
export function parseEnhancedCode(text: string): string | undefined {
  const body = text.replace(/^\d{3}[ -]/, '').trimStart();
  const m = ENHANCED.exec(body.slice(0, 12)) ?? ENHANCED.exec(body);
  return m ? `${m[1]}.${Number(m[2])}.${Number(m[3])}` : undefined;
}

/** Splits a raw (possibly multi-line) reply such as "550-5.7.1 a\n550 5.7.1 b" into its parts. */
export function parseReply(response: string): SmtpReply {
  const lines = response.split(/\r?\n/).filter((l) => l.trim() !== '');
  const code = Number(/^(\d{3})/.exec(lines[0] ?? '')?.[1] ?? 0);
  const text = lines
    .map((l) => l.replace(/^\d{3}[ -]/, '').replace(/^[245]\.\d{1,3}\.\d{1,3}\s*/, ''))
    .join(' ')
    .trim();
  const enhanced = parseEnhancedCode(lines[0] ?? '') ?? (code ? undefined : parseEnhancedCode(response));
  return { code, enhanced, text: text || response.trim() };
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600 };
const MAX_RETRY_AFTER = 24 * 3600;

const WAIT = new RegExp(
  /(?:try(?:\s+it)?\s+again|retry|wait|come back|resend)\D{0,24}?/.source +
    /(\d{1,6})\s*(seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h)\b/.source,
  'i',
);

/** Reads a named wait ("try again in 300 seconds", "retry in 5 minutes") in seconds. */
export function parseRetryAfter(text: string): number | undefined {
  const m = WAIT.exec(text);
  if (!m) return undefined;
  const seconds = Number(m[1]) * UNIT_SECONDS[m[2][0].toLowerCase()];
  return seconds > 0 ? Math.min(seconds, MAX_RETRY_AFTER) : undefined;
}

interface Rule {
  /** Reply code class the rule applies to: 4 (transient), 5 (permanent) or both. */
  classes: (4 | 5)[];
  text?: RegExp; // decides first
  enhanced?: RegExp; // a specific enhanced code: decides when no text matched
  weak?: RegExp; // a code family: decides only when neither text nor a specific code did
  vague?: true; // its text is too loose ("not accepted") to overrule a specific code
  action?: 'defer' | 'bounce'; // defaults to the code class
  subType: BounceSubType;
  category: string;
}

// First match wins within a pass, so the order is a priority: whatever names US as the cause
// (rate, blocklist, authentication, content, size, relay) comes before the recipient, and a
// reply that names both is never held against the recipient. The words are in classify-vocab.ts
// (English and 20 other languages); the codes are RFC 3463/5248 read by class.subject.detail
// (x.1.x addresses, x.2.x mailboxes, x.3.4 size, x.4.x routing, x.5/x.6 protocol, x.7.x security
// and policy), with the codes Gmail, Microsoft and Yahoo give their own meaning.
const RULES: Rule[] = [
  // 5xx replies that say "not now": greylisting, "try again later". Yahoo's "permanently
  // deferred ... Retrying will NOT succeed" is excluded by PERMANENT_GUARD.
  { classes: [4, 5], action: 'defer', subType: 'General', category: 'greylist', text: /gr[ae]y-?list/i },
  { classes: [5], action: 'defer', subType: 'General', category: 'temporary', text: V.TRY_LATER },
  // Rate limits and volume throttling (Gmail 4.7.28 / 4.7.0, Yahoo TSS04/TSS11, Microsoft 4.7.500,
  // QQ "frequency limited"). Gmail's 5.7.28 is a block for the same flood, not a rate: below.
  {
    classes: [4, 5],
    action: 'defer',
    subType: 'General',
    category: 'rate_limit',
    enhanced: /^4\.7\.(?:28|500)$/,
    text: V.RATE,
  },
  // Our sending IP or domain is blocked: blocklists, reputation (Microsoft 5.7.606-649 banned
  // IP / 5.7.708 / 5.7.750 / S3140 / S3150, RFC 5.7.28 mail flood, Spamhaus, Yahoo TSS09/PH01,
  // Comcast, Orange OFR_506, T-Online (BL), Proofpoint, Mimecast, Barracuda). Never the recipient's fault.
  {
    classes: [5],
    subType: 'General',
    category: 'blocklist',
    enhanced: /^5\.7\.(?:28|60[6-9]|6[1-4]\d|708|750|511)$/,
    text: V.BLOCKLIST,
  },
  // Sender authentication (SPF, DKIM, DMARC, ARC, rDNS/HELO; RFC 7372 5.7.20-24, Gmail
  // 5.7.25-5.7.27, Microsoft 5.7.509/5.7.515, Mimecast anti-spoofing): our setup, not the recipient.
  { classes: [5], subType: 'General', category: 'auth', enhanced: /^5\.7\.(?:2[0-7]|29|509|515|30)$/, text: V.AUTH },
  // Viruses, blocked attachment types and Amavis "BANNED"; checked before generic content and spam.
  { classes: [5], subType: 'AttachmentRejected', category: 'virus', text: V.VIRUS },
  // Spam and content refusals, content scanners and filters.
  { classes: [5], subType: 'ContentRejected', category: 'spam', text: V.SPAM },
  // Mailbox full: 4.2.2 stays a deferral, 5.2.2 bounces.
  { classes: [4, 5], subType: 'MailboxFull', category: 'mailbox_full', enhanced: /^[45]\.2\.2$/, text: V.FULL },
  // Message too large: x.3.4, and x.2.3 "message length exceeds administrative limit".
  {
    classes: [4, 5],
    subType: 'MessageTooLarge',
    category: 'message_size',
    enhanced: /^[45]\.(?:3\.4|2\.3)$/,
    text: V.SIZE,
  },
  // Bad sender address (x.1.7 syntax, x.1.8 domain), or a sender domain without MX/A records (GMX).
  { classes: [5], subType: 'General', category: 'sender', enhanced: /^5\.1\.(?:7|8)$/, text: V.SENDER },
  // Relaying refused: the host does not take mail for this domain.
  { classes: [5], subType: 'General', category: 'relay', enhanced: /^5\.7\.(?:54)$/, text: V.RELAY },
  // Destination routing and DNS: the domain does not exist or takes no mail (5.1.2, 5.4.4). Before
  // the recipient, so that Postfix's "Recipient address rejected: Domain not found" names the
  // domain. A routing loop (5.4.6) or an expired message (5.4.7) says nothing about the address.
  { classes: [5], subType: 'General', category: 'dns', enhanced: /^5\.1\.2$|^5\.4\.4$/, text: V.DNS },
  // Unknown or disabled recipient (x.1.1 bad mailbox, x.1.3 bad syntax, x.1.6 moved, x.2.1
  // disabled; Microsoft 5.1.10 and 5.4.1 "Access denied"). The only rule that suppresses the
  // recipient: a text that names a nonexistent or closed mailbox.
  {
    classes: [5],
    subType: 'NoEmail',
    category: 'recipient',
    enhanced: /^5\.1\.(?:0|1|3|6|10)$|^5\.2\.1$|^5\.4\.1$/,
    text: V.NO_MAILBOX,
  },
  // Policy refusals; any other 5.7.x code is one too, when neither the text nor a specific code said more.
  { classes: [5], subType: 'ContentRejected', category: 'policy', weak: /^5\.7\.\d+$/, vague: true, text: V.POLICY },
  // Protocol errors on our side (should not happen; bounce so the message does not loop).
  { classes: [5], subType: 'General', category: 'protocol', enhanced: /^5\.5\.\d+$|^5\.6\.\d+$/ },
  // Transient connection and server troubles.
  { classes: [4], subType: 'General', category: 'connection', enhanced: /^4\.4\.\d+$/, text: V.CONNECTION },
];

// Generic codes that providers use for many things: for them only the text decides.
const GENERIC_ENHANCED = /^[45]\.0\.0$|^5\.5\.0$|^5\.7\.[01]$/;
const PERMANENT_GUARD = /will not succeed|permanent(?:ly)? (?:failure|rejected|deferred|error)|do not retry/i;

/**
 * Picks the rule for a reply. The text decides first: an explicit text beats a contradicting
 * code (Orange sends "552 5.1.1 Boite du destinataire pleine", a full mailbox under the code of
 * an unknown one). Then a specific enhanced code, then a code family. Three exceptions keep a
 * contradiction from doing harm: a "try later" text does not turn a specific permanent code into
 * a retry; a vague text ("not accepted") does not overrule a specific code; and a text that alone
 * would suppress (the mailbox does not exist) yields to a specific code that says something
 * else, so an ambiguous reply never suppresses the recipient.
 */
function pickRule(cls: 4 | 5, specific: string | undefined, text: string): Rule | undefined {
  const permanent = PERMANENT_GUARD.test(text);
  const usable = RULES.filter((r) => r.classes.includes(cls) && !(r.action === 'defer' && cls === 5 && permanent));
  const byText = usable.find((r) => r.text?.test(text));
  const byCode = specific === undefined ? undefined : usable.find((r) => r.enhanced?.test(specific));
  const byFamily = specific === undefined ? undefined : usable.find((r) => r.weak?.test(specific));
  if (byText && byCode && byText !== byCode) {
    if (byText.vague) return byCode;
    const retryAgainstPermanent = byText.action === 'defer' && cls === 5 && byCode.action !== 'defer';
    if (retryAgainstPermanent || suppressesRecipient(byText.category)) return byCode;
  }
  return byText ?? byCode ?? byFamily;
}

/** Classifies one SMTP reply. A reply without a code (a socket failure) defers. */
export function classifyReply(reply: SmtpReply): Classification {
  const code = reply.code;
  const enhanced = reply.enhanced ?? parseEnhancedCode(reply.text);
  const text = V.foldReply(reply.text);
  const retryAfterSeconds = parseRetryAfter(reply.text);
  const withRetry = (c: Classification): Classification =>
    c.action === 'defer' && retryAfterSeconds !== undefined ? { ...c, retryAfterSeconds } : c;

  if (code >= 200 && code < 400) return { action: 'delivered', subType: 'General', category: 'delivered' };
  if (code < 400 || code >= 600) return withRetry({ action: 'defer', subType: 'Undetermined', category: 'network' });

  // The reply class decides, but an enhanced 4.x.x inside a 5xx reply (greylisting servers do
  // this) is a deferral; a 5.x.x inside a 4xx stays a deferral too (the code wins for safety).
  let cls: 4 | 5 = code >= 500 ? 5 : 4;
  if (cls === 5 && enhanced?.startsWith('4.')) cls = 4;

  const specific = enhanced && !GENERIC_ENHANCED.test(enhanced) ? enhanced : undefined;
  const rule = pickRule(cls, specific, text);
  if (rule) {
    const action = rule.action ?? (cls === 4 ? 'defer' : 'bounce');
    return withRetry({ action, subType: rule.subType, category: rule.category });
  }
  // Nothing recognisable: a permanent bounce that is NOT held against the recipient ('other').
  return cls === 4
    ? withRetry({ action: 'defer', subType: 'General', category: 'temporary' })
    : { action: 'bounce', subType: 'General', category: 'other' };
}

/** Parses and classifies a raw reply string such as "550 5.1.1 User unknown". */
export function classifyResponse(response: string): Classification & SmtpReply {
  const reply = parseReply(response);
  return { ...reply, ...classifyReply(reply) };
}
