// What a message that reached one of our return paths is: a delivery status notification
// (RFC 3464, also RFC 6533's global form), a non-standard bounce (Exim's X-Failed-Recipients,
// qmail's "failure notice", Exchange-style "Undeliverable:" texts), a delay notice, a feedback
// loop complaint (ARF, RFC 5965), an auto-reply (RFC 3834 Auto-Submitted, X-Autoreply, common
// out-of-office subjects), or something else. Pure: bytes in, a report out; matching it to an
// email and recording it is return-path.ts's job.
import { classifyReply, parseEnhancedCode, type BounceSubType } from '../mta/classify.js';
import { decodeWords, headerValue, parseHeaderBlock, parseMime, partText, walk, type MimePart } from './mime-tree.js';

export type ReportAction = 'failed' | 'delayed' | 'delivered' | 'relayed' | 'expanded';

export interface ReportRecipient {
  recipient: string; // bare address, lowercase; '' when the report does not say
  action: ReportAction;
  status?: string; // RFC 3463 code, e.g. 5.1.1
  diagnosticCode?: string; // as reported, e.g. "smtp; 550 5.1.1 user unknown"
  remoteMta?: string;
}

export type ReturnPathReport =
  | {
      kind: 'bounce' | 'delay';
      format: 'dsn' | 'non_standard';
      reportingMta?: string;
      arrivalDate?: string;
      originalMessageId?: string;
      recipients: ReportRecipient[];
    }
  | {
      kind: 'complaint';
      feedbackType: string;
      userAgent?: string;
      arrivalDate?: string;
      sourceIp?: string;
      originalMessageId?: string;
      recipients: string[];
    }
  | { kind: 'auto_reply'; reason: string; originalMessageId?: string }
  | { kind: 'unknown'; reason: string; originalMessageId?: string };

const MAX_REPORT_BYTES = 4 * 1024 * 1024; // reports are small; an enclosed original past this is not needed to read them
const ACTIONS = new Set<ReportAction>(['failed', 'delayed', 'delivered', 'relayed', 'expanded']);
const COMPLAINT_TYPES = new Set(['abuse', 'fraud', 'virus', 'other']);

/** "rfc822; <User@Example.com>" -> "user@example.com" */
function typedAddress(v: string | undefined): string {
  if (!v) return '';
  const bare = v.includes(';') ? v.slice(v.indexOf(';') + 1) : v;
  return bare.trim().replace(/^<|>$/g, '').trim().toLowerCase();
}
const typedValue = (v: string | undefined) =>
  (v && v.includes(';') ? v.slice(v.indexOf(';') + 1).trim() : v?.trim()) || undefined;
const statusCode = (v: string | undefined) => (v ? /\b([245]\.\d{1,3}\.\d{1,3})\b/.exec(v)?.[1] : undefined);

/** The header sections of the originals a report encloses (as message/rfc822 or just their headers), in order. */
function* enclosedHeaders(root: MimePart): Generator<Map<string, string[]>> {
  for (const p of walk(root)) {
    if ((p.contentType === 'message/rfc822' || p.contentType === 'message/global') && p.children[0])
      yield p.children[0].headers;
    else if (p.contentType === 'text/rfc822-headers' || p.contentType === 'message/global-headers')
      yield parseHeaderBlock(partText(p));
  }
}

/** The Message-ID of the original message enclosed in a report. */
function enclosedMessageId(root: MimePart): string | undefined {
  for (const headers of enclosedHeaders(root)) {
    const mid = headers.get('message-id')?.[0]?.trim();
    if (mid) return mid.startsWith('<') ? mid : `<${mid}>`;
  }
  return undefined;
}

/**
 * The original's Message-ID: from an enclosed message or its headers, else from a copy quoted in
 * the text (Exim, qmail), else the report's own In-Reply-To (Exchange, auto-replies).
 */
function originalMessageIdOf(root: MimePart, text = ''): string | undefined {
  const quoted = /^Message-ID:[ \t]*(<[^>\s]+>)/im.exec(text)?.[1];
  const inReplyTo = /<[^>\s]+>/.exec(headerValue(root, 'in-reply-to') ?? '')?.[0];
  return enclosedMessageId(root) ?? quoted ?? inReplyTo;
}

/** Addresses of the enclosed original's To/Cc (when the reporter did not redact them). */
function enclosedRecipients(root: MimePart): string[] {
  for (const headers of enclosedHeaders(root)) {
    const list = [...(headers.get('to') ?? []), ...(headers.get('cc') ?? [])].join(',');
    return [...list.matchAll(/[^\s<>,;:"]+@[^\s<>,;:"]+\.[^\s<>,;:"]+/g)].map((m) => m[0].toLowerCase());
  }
  return [];
}

/** Splits a delivery-status body into its per-message block and per-recipient blocks. */
function dsnBlocks(text: string): Map<string, string[]>[] {
  return text
    .replace(/\r\n/g, '\n')
    .split(/\n[ \t]*\n/)
    .map((b) => b.trim())
    .filter(Boolean)
    .map(parseHeaderBlock);
}

function parseDsn(root: MimePart, statusPart: MimePart): ReturnPathReport {
  const [perMessage, ...perRecipient] = dsnBlocks(partText(statusPart));
  const recipients: ReportRecipient[] = [];
  for (const b of perRecipient) {
    const action = b.get('action')?.[0]?.trim().toLowerCase().split(/\s/)[0] as ReportAction | undefined;
    if (!action || !ACTIONS.has(action)) continue;
    recipients.push({
      recipient: typedAddress(b.get('final-recipient')?.[0] ?? b.get('original-recipient')?.[0]),
      action,
      status: statusCode(b.get('status')?.[0]),
      diagnosticCode: b.get('diagnostic-code')?.[0]?.trim() || undefined,
      remoteMta: typedValue(b.get('remote-mta')?.[0]),
    });
  }
  const originalMessageId = originalMessageIdOf(root);
  const base = {
    format: 'dsn' as const,
    reportingMta: typedValue(perMessage?.get('reporting-mta')?.[0]),
    arrivalDate: perMessage?.get('arrival-date')?.[0],
    originalMessageId,
  };
  if (recipients.some((r) => r.action === 'failed')) return { kind: 'bounce', ...base, recipients };
  if (recipients.some((r) => r.action === 'delayed')) return { kind: 'delay', ...base, recipients };
  return {
    kind: 'unknown',
    reason: recipients.length
      ? 'delivery status notification without failures'
      : 'delivery status notification without recipients',
    originalMessageId,
  };
}

function parseArf(root: MimePart, feedback: MimePart): ReturnPathReport {
  const f = parseHeaderBlock(partText(feedback));
  const feedbackType = (f.get('feedback-type')?.[0] ?? 'other').trim().toLowerCase();
  const originalMessageId = originalMessageIdOf(root);
  if (!COMPLAINT_TYPES.has(feedbackType))
    return { kind: 'unknown', reason: `feedback report of type ${feedbackType}`, originalMessageId };
  const named = (f.get('original-rcpt-to') ?? []).map(typedAddress).filter((a) => a.includes('@'));
  return {
    kind: 'complaint',
    feedbackType,
    userAgent: f.get('user-agent')?.[0],
    arrivalDate: f.get('arrival-date')?.[0] ?? f.get('received-date')?.[0],
    sourceIp: f.get('source-ip')?.[0],
    originalMessageId,
    recipients: named.length ? named : enclosedRecipients(root),
  };
}

// Auto-replies (RFC 3834 and the headers that common responders set instead).
const OOO_SUBJECT =
  /^(?:(?:auto(?:matic)?[- ]?(?:reply|response|antwort)|autoreply|auto:|out of (?:the )?office|ooo\b|away from|on vacation|vacation reply|abwesenheit|r[ée]ponse automatique|absence|respuesta autom[aá]tica|risposta automatica|fuori sede))/i;
const BOUNCE_SUBJECT =
  /undeliver|undelivered|delivery (?:status notification|has failed|failure|failed|problem)|mail delivery (?:failed|failure|subsystem|system)|returned mail|failure notice|could not be delivered|delivery notification|non[- ]?delivery|nondeliverable|rejected:|message not delivered|unzustellbar|non remis/i;
const DELAY_SUBJECT =
  /delay|still being retried|warning: .*(?:could not|not yet) be(?:en)? delivered|not yet delivered/i;
const DAEMON_SENDER = /^(?:mailer-daemon|postmaster|mail-daemon|mailerdaemon)@/i;

function autoReplyReason(root: MimePart, subject: string): string | undefined {
  const h = (n: string) => headerValue(root, n)?.toLowerCase();
  if (h('x-autoreply') || h('x-autorespond') || h('x-autoresponder')) return 'x-autoreply';
  if (/auto[_-]?reply/.test(h('precedence') ?? '')) return 'precedence';
  if (OOO_SUBJECT.test(subject)) return 'out-of-office subject';
  const auto = h('auto-submitted');
  if (auto && auto !== 'no' && !BOUNCE_SUBJECT.test(subject)) return `auto-submitted: ${auto.split(';')[0].trim()}`;
  if (h('x-auto-response-suppress') && /^(?:re:\s*)?(?:auto|out)/i.test(subject)) return 'auto-response';
  return undefined;
}

// SMTP replies quoted in a plain-text bounce: "550 5.1.1 <u@x>: Recipient address rejected" or "said: 550 ...".
const QUOTED_REPLY = /\b([45]\d\d)[ -]((?:[45]\.\d{1,3}\.\d{1,3}\s+)?[^\r\n]{3,300})/;
const ADDRESS = /<?([a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?\.[a-z]{2,})>?/gi;

function parseNonStandard(root: MimePart, subject: string, delayed: boolean): ReturnPathReport {
  // The human-readable part: the first text/plain outside any enclosed original.
  let text = '';
  for (const p of walk(root)) {
    if (p.contentType === 'message/rfc822' || p.contentType === 'message/global') break;
    if (p.contentType === 'text/plain' && p.children.length === 0) {
      text = partText(p);
      break;
    }
    if (!text && p.contentType === 'text/html' && p.children.length === 0) text = partText(p).replace(/<[^>]+>/g, ' ');
  }
  // The notice proper ends where the copy of the original begins (Exim, qmail, Sendmail wording).
  const cut = text.search(
    /^[ \t-]*(?:-+ ?This is a copy of the message|Below this line is a copy|-+ ?Original message|-+ ?The original message)/im,
  );
  const notice = cut > 0 ? text.slice(0, cut) : text;
  const reply = QUOTED_REPLY.exec(notice);
  // Without a quoted reply, a line carrying an enhanced code ("... by that name. (#5.1.1)", qmail).
  const codeLine = reply
    ? undefined
    : notice
        .split(/\r?\n/)
        .find((l) => /(?<![\d.])[45]\.\d{1,3}\.\d{1,3}(?![\d.])/.test(l))
        ?.trim();
  const diagnostic = reply
    ? `smtp; ${reply[1]} ${reply[2].trim()}`
    : codeLine
      ? `x-unix; ${codeLine.slice(0, 300)}`
      : undefined;
  const status =
    (reply ? (parseEnhancedCode(reply[2]) ?? `${reply[1][0]}.0.0`) : codeLine && parseEnhancedCode(codeLine)) ||
    (delayed ? '4.0.0' : '5.0.0');
  const failed = (headerValue(root, 'x-failed-recipients') ?? '')
    .split(',')
    .map((a) => typedAddress(a))
    .filter((a) => a.includes('@'));
  // Otherwise every address the text names; return-path.ts keeps those that are the email's recipients.
  const named = failed.length
    ? failed
    : [...new Set([...notice.slice(0, 64 * 1024).matchAll(ADDRESS)].map((m) => m[1].toLowerCase()))].filter(
        (a) => !DAEMON_SENDER.test(a),
      );
  const action: ReportAction = delayed ? 'delayed' : 'failed';
  const recipients = (named.length ? named : ['']).map((recipient) => ({
    recipient,
    action,
    status,
    diagnosticCode: diagnostic,
  }));
  return {
    kind: delayed ? 'delay' : 'bounce',
    format: 'non_standard',
    originalMessageId: originalMessageIdOf(root, text),
    recipients,
  };
}

/** Reads a message that reached a return path. `mailFrom` is the envelope sender ('' = null sender). */
export function parseReturnPathMessage(raw: Buffer, mailFrom = ''): ReturnPathReport {
  const root = parseMime(raw.length > MAX_REPORT_BYTES ? raw.subarray(0, MAX_REPORT_BYTES) : raw);
  const subject = decodeWords(headerValue(root, 'subject') ?? '').trim();
  const parts = [...walk(root)];
  const statusPart = parts.find(
    (p) => p.contentType === 'message/delivery-status' || p.contentType === 'message/global-delivery-status',
  );
  if (statusPart) return parseDsn(root, statusPart);
  const feedback = parts.find((p) => p.contentType === 'message/feedback-report');
  if (feedback) return parseArf(root, feedback);

  const auto = autoReplyReason(root, subject);
  if (auto) return { kind: 'auto_reply', reason: auto, originalMessageId: originalMessageIdOf(root) };

  const from = headerValue(root, 'from') ?? '';
  const fromDaemon = mailFrom === '' || DAEMON_SENDER.test(typedAddress(/<([^>]+)>/.exec(from)?.[1] ?? from));
  const looksLikeBounce =
    headerValue(root, 'x-failed-recipients') !== undefined || (fromDaemon && BOUNCE_SUBJECT.test(subject));
  if (looksLikeBounce)
    return parseNonStandard(
      root,
      subject,
      DELAY_SUBJECT.test(subject) && !/fail|undeliverable|returned/i.test(subject),
    );
  return {
    kind: 'unknown',
    reason: fromDaemon ? 'message from a mailer daemon that is not a bounce' : 'not a bounce, complaint or auto-reply',
    originalMessageId: originalMessageIdOf(root),
  };
}

export interface ReportClassification {
  type: 'Permanent' | 'Transient';
  subType: BounceSubType;
  category: string;
  reply: string;
}

/** Classifies a reported recipient with the same rules table as synchronous SMTP replies. */
export function classifyReportRecipient(r: ReportRecipient): ReportClassification {
  const diag = r.diagnosticCode ? (typedValue(r.diagnosticCode) ?? r.diagnosticCode) : undefined;
  const quoted = diag ? /^([245]\d\d)[ -]?(.*)$/s.exec(diag) : null;
  const status = r.status ?? (quoted ? parseEnhancedCode(quoted[2]) : undefined);
  const cls = status ? status[0] : quoted ? quoted[1][0] : '5';
  const code = quoted && quoted[1][0] === cls ? Number(quoted[1]) : cls === '4' ? 450 : 550;
  const text = (quoted ? quoted[2] : (diag ?? '')).trim() || (status ?? '');
  const c = classifyReply({ code, enhanced: status, text });
  // The Status field decides permanence (5.x.x permanent, 4.x.x transient); without one, the rules do.
  const permanent = status ? status.startsWith('5') : c.action === 'bounce';
  const reply = quoted ? `${quoted[1]} ${quoted[2].trim()}` : `${code} ${text}`.trim();
  return {
    type: permanent ? 'Permanent' : 'Transient',
    subType: permanent ? c.subType : c.subType === 'Undetermined' ? 'General' : c.subType,
    category: c.category,
    reply,
  };
}
