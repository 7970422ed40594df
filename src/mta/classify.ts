// Turns one SMTP reply into an outcome: delivered, defer (retry later) or bounce, with a bounce
// subType (Resend's values only: the OpenAPI WebhookEventBounce.subType enum, plus Suppressed),
// a category, and whether the recipient's address should be suppressed. Our own rules table,
// written from public provider replies (test/fixtures/bounce-corpus.ts); no SMTP I/O.
// What is refused because of US (our IP or domain on a blocklist, reputation, authentication,
// rate, relay, our sender address, policy or content) is never held against the recipient: only
// a recipient that does not exist (or a domain that does not) is suppressed.

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

/** One case-insensitive pattern from readable alternatives, one or a few per line. */
const anyOf = (...parts: RegExp[]): RegExp => new RegExp(parts.map((p) => p.source).join('|'), 'i');

// First match wins within a pass, so the order is a priority: whatever names US as the cause
// (rate, blocklist, authentication, content, size, relay) comes before the recipient, and a
// reply that names both is never held against the recipient.
// Sources: RFC 3463 / RFC 5248 code registry and the replies that Gmail, Microsoft 365/Outlook,
// Yahoo/AOL, Apple iCloud, Orange, QQ, 163, GMX, Postfix, Exim, qmail, Amavis and filtering
// gateways document or are widely seen to send (test/fixtures/bounce-corpus.ts).
const RULES: Rule[] = [
  // 5xx replies that say "not now": greylisting, "try again later". Yahoo's "permanently
  // deferred ... Retrying will NOT succeed" is excluded by PERMANENT_GUARD.
  { classes: [4, 5], action: 'defer', subType: 'General', category: 'greylist', text: /gr[ae]y-?list/i },
  {
    classes: [5], action: 'defer', subType: 'General', category: 'temporary',
    text: anyOf(
      /try (?:again )?later|try again in|please retry|retry (?:later|in)|resources temporarily|system is busy/,
      /temporar(?:y|ily) (?:failure|error|unavailable|rejected|deferred|blocked|local problem)/,
    ),
  },
  // Rate limits and volume throttling (Gmail 4.7.28 / 4.7.0, Yahoo TSS04, Microsoft 4.7.500, QQ
  // "frequency limited"). Only a rate is a rate: "exceeded ... limit" alone is often a size.
  {
    classes: [4, 5], action: 'defer', subType: 'General', category: 'rate_limit', enhanced: /^[45]\.7\.(?:28|500)$/,
    text: anyOf(
      /rate limit|ratelimit|throttl|unusual rate|unexpected volume|exceeded .{0,20}rate|frequency limited/,
      /too many (?:messages|connections|recipients|concurrent|mails|sessions|smtp)/,
      /\[TSS0[14]\]|4\.7\.500|sending (?:too|very) (?:fast|many)|receiving mail at a rate/,
    ),
  },
  // Our sending IP or domain is blocked: blocklists, reputation (Microsoft 5.7.606-649 banned
  // IP / 5.7.708 / 5.7.750 / S3140 / S3150, Spamhaus, Yahoo TSS09/PH01, Comcast, Orange
  // OFR_506, Proofpoint, Mimecast, Barracuda). Never the recipient's fault.
  {
    classes: [5], subType: 'General', category: 'blocklist', enhanced: /^5\.7\.(?:60[6-9]|6[1-4]\d|708|750|511)$/,
    text: anyOf(
      /block ?list|black ?list|spamhaus|barracuda|spamcop|sorbs|\bdnsbls?\b|uribl|\brbl\b|listed (?:at|on|in|by)/,
      /(?:poor|bad|low) (?:ip |sender |domain )?reputation|reputation (?:of|is)/,
      /\[TSS09\]|\[PH01\]|\(S3140\)|\(S3150\)|\(S775\)|ofr_?50[36]/,
      /banned sending|access denied, banned|traffic not accepted from this ip|on our block list/,
      /client host .{0,80}(?:blocked|rejected|refused)|blocked (?:using|because of|due to ip)|blocked - see|:blocked\)/,
      /\b(?:ip|host|address) .{0,60}(?:is|has been|was) (?:blocked|blacklisted|banned|listed)/,
      /(?:envelope|connection|sender ip|your ip) (?:blocked|rejected|refused)|refused by (?:dnsbl|blacklist)/,
      /dynamic (?:ip|address)|residential ip|not accepted from (?:your|this) (?:ip|network)/,
    ),
  },
  // Sender authentication (SPF, DKIM, DMARC, ARC, rDNS/HELO; Gmail 5.7.25-5.7.27, Microsoft
  // 5.7.509/5.7.515, Mimecast anti-spoofing): our setup, not the recipient.
  {
    classes: [5], subType: 'General', category: 'auth', enhanced: /^5\.7\.(?:2[3-7]|509|515|30)$/,
    text: anyOf(
      /dmarc|unauthenticated|\bspf\b|sender policy framework|\bdkim\b|anti-?spoof|spoof(?:ing|ed)/,
      /not authenticated|authentication (?:required|failed|check)/,
      /\bptr\b|reverse dns|\brdns\b|reverse lookup|helo|ehlo|forward-confirmed|fcrdns/,
    ),
  },
  // Viruses, blocked attachment types and Amavis "BANNED" (a banned file name or type); checked
  // before generic content and spam.
  {
    classes: [5], subType: 'AttachmentRejected', category: 'virus',
    text: anyOf(
      /virus|malware|infected|\battachment|file type|file extension|potential security issue|executable/,
      /blocked file|prohibited file|- banned:|banned contents? alert|banned (?:file|attachment)/,
    ),
  },
  // Spam and content refusals, content scanners and filters.
  {
    classes: [5], subType: 'ContentRejected', category: 'spam',
    text: anyOf(
      /spam|unsolicited|bulk mail|phish|suspicious|likely (?:unsolicited|spam)|\[CS0\d\]/,
      /junk mail|considered (?:as )?junk/,
      /content (?:rejected|policy|filter|violation|scanner|blocked)|banned content|message filtered/,
      /message (?:content )?(?:was )?(?:blocked|rejected|refused) (?:as|due to|because)/,
      /message (?:content )?(?:was )?(?:blocked|rejected) by (?!(?:\w+ )?polic)/,
      /url (?:is )?(?:blocked|listed)|scam|fraud/,
    ),
  },
  // Mailbox full: 4.2.2 stays a deferral, 5.2.2 bounces.
  {
    classes: [4, 5], subType: 'MailboxFull', category: 'mailbox_full', enhanced: /^[45]\.2\.2$/,
    text: anyOf(
      /mailbox (?:is )?full|over ?quota|overquota|quota (?:exceeded|exceed)|exceeded .{0,20}(?:quota|storage)/,
      /insufficient (?:system )?storage|out of storage|mailbox size limit|mailbox (?:has )?exceeded|full mailbox/,
      /storage (?:space|limit|quota)|disk quota/,
      /casella piena|spazio esaurito|boite aux lettres pleine|buz[oó]n lleno/,
    ),
  },
  // Message too large (5.3.4; 552 with a size text).
  {
    classes: [4, 5], subType: 'MessageTooLarge', category: 'message_size', enhanced: /^[45]\.3\.4$/,
    text: /too (?:large|big)|size (?:limit|exceed)|exceeds? .{0,30}size|message size|message length exceeds/i,
  },
  // Bad sender address, or a sender domain without MX/A records (GMX).
  {
    classes: [5], subType: 'General', category: 'sender', enhanced: /^5\.1\.(?:7|8)$/,
    text: anyOf(
      /sender (?:address )?(?:rejected|invalid|unknown|domain)|domain of sender|sender verify failed/,
      /unverifiable sender|return path|invalid dns mx/,
    ),
  },
  // Relaying refused: the host does not take mail for this domain.
  {
    classes: [5], subType: 'General', category: 'relay', enhanced: /^5\.7\.(?:54)$/,
    text: anyOf(
      /relay(?:ing)? (?:access )?(?:denied|not permitted|prohibited|not allowed)|not permitted to relay/,
      /unable to relay|relay not permitted|we do not relay|no relaying|allowed rcpthosts/,
    ),
  },
  // Unknown or disabled recipient (Gmail 5.1.1/5.2.1, Microsoft 5.1.10 and 5.4.1 "Access denied",
  // Yahoo "doesn't have an account", AOL "mailbox is disabled (554.30)", QQ "deactivated mailbox";
  // Italian, French, Spanish, German, Portuguese, Russian and Chinese texts). The only rule that
  // suppresses the recipient: a text that names a nonexistent or closed mailbox.
  {
    classes: [5], subType: 'NoEmail', category: 'recipient', enhanced: /^5\.1\.(?:0|1|3|6|10)$|^5\.2\.1$|^5\.4\.1$/,
    text: anyOf(
      /user unknown|unknown user|no such (?:user|recipient|mailbox|account|address|person)/,
      /unknown (?:recipient|mailbox|address|local ?part)|recipient unknown|addressee unknown|unknown email address/,
      /(?:user|recipient|mailbox|address|account|email account)(?: name)? (?:does not|doesn't|did not) exist/,
      /does not exist|recipient (?:address )?rejected|not (?:a )?valid (?:mailbox|recipient|user|address)/,
      /invalid (?:recipient|mailbox|address|user)|recipient not found|address not found|unrouteable address/,
      /mailbox (?:unavailable|not found|disabled|inactive|not available|does not exist)/,
      /mailbox (?:is )?(?:disabled|inactive|unavailable)|deactivated|no mailbox (?:here|by that name)/,
      /account (?:is |has been )?(?:disabled|inactive|suspended|deactivated|closed|blocked|locked|expired)/,
      /doesn't have (?:a |an )?(?:[\w.-]+ )?account|not our customer|mailbox (?:name )?not allowed/,
      /user (?:not found|is inactive|is disabled|is suspended|suspended|disabled|inactive)/,
      /no longer (?:active|valid|in use|available)|bad destination mailbox|undeliverable address/,
      /no such local user|destination address rejected|\(554\.30\)/,
      /utente (?:inesistente|non trovato)|destinatario sconosciuto|casella di posta non esiste/,
      /destinataire (?:inconnu|invalide)|usuario no existe|benutzer unbekannt|usu[aá]rio n[aã]o encontrado/,
      /нет такого пользователя|收件人不存在/,
    ),
  },
  // Policy refusals; any other 5.7.x code is one too, when neither the text nor a specific code said more.
  {
    classes: [5], subType: 'ContentRejected', category: 'policy', weak: /^5\.7\.\d+$/, vague: true,
    text: /polic(?:y|ies)|not accepted|prohibit/i,
  },
  // Destination routing and DNS: the domain does not exist or takes no mail (5.1.2, 5.4.4). A
  // routing loop (5.4.6) or an expired message (5.4.7) says nothing about the address.
  {
    classes: [5], subType: 'General', category: 'dns', enhanced: /^5\.1\.2$|^5\.4\.4$/,
    text: anyOf(
      /host (?:not found|unknown)|domain (?:not found|does not exist|name not found)|no such domain/,
      /no mx|null mx|unroutable|does not accept mail/,
    ),
  },
  // Protocol errors on our side (should not happen; bounce so the message does not loop).
  { classes: [5], subType: 'General', category: 'protocol', enhanced: /^5\.5\.\d+$|^5\.6\.\d+$/ },
  // Transient connection and server troubles.
  {
    classes: [4], subType: 'General', category: 'connection', enhanced: /^4\.4\.\d+$/,
    text: /service not available|closing (?:transmission )?channel|too busy|connection (?:refused|timed out|lost)/i,
  },
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
  const text = reply.text;
  const retryAfterSeconds = parseRetryAfter(text);
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
