// Per-recipient delivery results: the value deliver() returns, and how SMTP replies, nodemailer
// errors and local failures (DNS, connection) map onto it. No I/O.
import { classifyResponse, type BounceSubType } from './classify.js';

export interface RecipientResult {
  recipient: string;
  status: 'delivered' | 'deferred' | 'bounced';
  code?: number; // SMTP reply code, when a server (or a synthetic reply below) gave one
  enhanced?: string; // RFC 3463 code
  response: string; // the full reply, or a readable reason for local failures
  mxHost?: string;
  tls: boolean;
  subType?: BounceSubType; // for bounces
  category?: string;
  retryAfterSeconds?: number;
}

export interface Attempt {
  mxHost?: string;
  tls: boolean;
}

/** Maps a server reply for one recipient. */
export function fromReply(recipient: string, response: string, at: Attempt): RecipientResult {
  const c = classifyResponse(response);
  const status = c.action === 'delivered' ? 'delivered' : c.action === 'defer' ? 'deferred' : 'bounced';
  const result: RecipientResult = { recipient, status, response: response.trim(), tls: at.tls, category: c.category };
  if (c.code) result.code = c.code;
  if (c.enhanced) result.enhanced = c.enhanced;
  if (at.mxHost) result.mxHost = at.mxHost;
  if (status === 'bounced') result.subType = c.subType;
  if (c.retryAfterSeconds !== undefined) result.retryAfterSeconds = c.retryAfterSeconds;
  return result;
}

/** A failure that never reached a server reply for this recipient (DNS, network, TLS policy). */
export function localFailure(
  recipient: string,
  status: 'deferred' | 'bounced',
  enhanced: string,
  reason: string,
  at: Attempt & { category: string; code?: number; subType?: BounceSubType },
): RecipientResult {
  const result: RecipientResult = {
    recipient,
    status,
    enhanced,
    response: at.code ? `${at.code} ${enhanced} ${reason}` : `${enhanced} ${reason}`,
    tls: at.tls,
    category: at.category,
  };
  if (at.code) result.code = at.code;
  if (at.mxHost) result.mxHost = at.mxHost;
  if (status === 'bounced') result.subType = at.subType ?? 'General';
  return result;
}

export type SendError = Error & {
  code?: string;
  command?: string;
  response?: string;
  responseCode?: number;
  recipient?: string;
  rejectedErrors?: SendError[];
};

export interface SendInfo {
  accepted: string[];
  rejected: string[];
  rejectedErrors?: SendError[];
  response: string;
}

/**
 * Maps the outcome of one SMTP transaction (nodemailer's send()) to per-recipient results.
 * `rcptErrors` are the RCPT rejections known when DATA itself failed (nodemailer does not attach
 * them to the DATA error); `accepted` the recipients the server took before DATA failed.
 */
export function fromTransaction(
  recipients: string[],
  outcome: { info?: SendInfo; err?: SendError; rcptErrors?: SendError[]; accepted?: string[] },
  at: Attempt,
): RecipientResult[] {
  const byRecipient = new Map<string, RecipientResult>();
  const { info, err } = outcome;
  if (info) {
    for (const r of info.accepted) byRecipient.set(r, fromReply(r, info.response, at));
    for (const e of info.rejectedErrors ?? [])
      if (e.recipient && e.response) byRecipient.set(e.recipient, fromReply(e.recipient, e.response, at));
  } else if (err) {
    const rejected = err.rejectedErrors ?? outcome.rcptErrors ?? [];
    for (const e of rejected)
      if (e.recipient && e.response) byRecipient.set(e.recipient, fromReply(e.recipient, e.response, at));
    if (err.response) {
      // A MAIL FROM or DATA reply applies to every recipient that has no RCPT reply of its own.
      const applies = err.command === 'DATA' && outcome.accepted ? outcome.accepted : recipients;
      for (const r of applies) if (!byRecipient.has(r)) byRecipient.set(r, fromReply(r, err.response, at));
    }
  }
  return recipients.map(
    (r) =>
      byRecipient.get(r) ??
      localFailure(r, 'deferred', '4.4.2', `no reply for this recipient${err ? `: ${err.message}` : ''}`, {
        ...at,
        category: 'network',
      }),
  );
}
