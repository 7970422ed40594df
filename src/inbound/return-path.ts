// What arrives at a VERP return path, applied to the email it names: a DSN or a non-standard
// bounce becomes email.bounced (or email.delivery_delayed for a delay notice) per recipient,
// classified by the same rules table as SMTP replies, with hard bounces suppressed; an ARF
// report becomes email.complained and suppresses the address; an auto-reply is recorded on the
// email's timeline, not as a bounce. Every message is kept in return_path_messages, matched or
// not, in the transaction that records its events. Nothing is ever sent back (no bounce loops).
import { bounceExtra, makeEvent } from '../events/email-events.js';
import { uuid } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';
import { withTx, type Pool } from '../store/db.js';
import { emailEventKeys, emailFindForReport, type EmailForReport, type EventInsert } from '../store/emails.js';
import { emailEventsInsertMany, type EventGroup } from '../store/email-delivery.js';
import { inspectDelivery } from '../insights/inspect.js';
import { DELIVERY_RULE_IDS } from '../insights/rules.js';
import { returnPathMessageInsert } from '../store/received-emails.js';
import { suppressionAdd } from '../store/suppressions.js';
import { suppressesRecipient } from '../mta/classify.js';
import { classifyReportRecipient, parseReturnPathMessage, type ReturnPathReport } from './return-path-report.js';

export interface ReturnPathDelivery {
  teamId: string;
  domainId: string;
  emailId: string | null;
  rcpt: string;
  mailFrom: string;
}
export interface ReturnPathOutcome {
  kind: ReturnPathReport['kind'];
  emailId: string | null;
  events: string[];
}

const recipientsOf = (e: EmailForReport) => [...e.to_addrs, ...e.cc_addrs, ...e.bcc_addrs].map((a) => a.toLowerCase());

/**
 * The email's recipients a report is about, each once with the first entry that names it. A
 * report naming none of them (a forwarder rewrote the address, a plain bounce quoting no
 * address) is about the only recipient when the email has one.
 */
function matchRecipients<T extends { recipient: string }>(
  e: EmailForReport,
  named: T[],
): { recipient: string; entry: T }[] {
  const all = recipientsOf(e);
  const out = new Map<string, T>();
  for (const n of named) if (all.includes(n.recipient) && !out.has(n.recipient)) out.set(n.recipient, n);
  if (!out.size && all.length === 1 && named.length) out.set(all[0], named[0]);
  return [...out].map(([recipient, entry]) => ({ recipient, entry }));
}

async function findEmail(
  pool: Pool,
  d: ReturnPathDelivery,
  report: ReturnPathReport,
): Promise<EmailForReport | undefined> {
  const byId = d.emailId ? await emailFindForReport(pool, { id: d.emailId }) : undefined;
  if (byId && byId.team_id === d.teamId && byId.domain_id === d.domainId) return byId;
  const mid = 'originalMessageId' in report ? report.originalMessageId : undefined;
  return mid ? emailFindForReport(pool, { teamId: d.teamId, messageId: mid }) : undefined;
}

export async function handleReturnPathMessage(
  deps: { pool: Pool; log: Logger },
  raw: Buffer,
  d: ReturnPathDelivery,
): Promise<ReturnPathOutcome> {
  const report = parseReturnPathMessage(raw, d.mailFrom);
  const email = await findEmail(deps.pool, d, report);
  const events: EventInsert[] = [];
  const suppress: { address: string; origin: 'bounce' | 'complaint'; reason: string }[] = [];
  let lastEvent: string | undefined;
  let markDelayed = false;
  let insight: EventGroup['insight'];
  // A report sent twice (the reporter's retry after a lost 250) is recorded once.
  const seen = email
    ? await emailEventKeys(deps.pool, email.id, ['email.bounced', 'email.complained'])
    : new Set<string>();

  if (email && (report.kind === 'bounce' || report.kind === 'delay')) {
    const reported = report.recipients.filter((r) => r.action === 'failed' || r.action === 'delayed');
    for (const { recipient, entry: r } of matchRecipients(email, reported)) {
      if (r.action === 'failed' && seen.has(`email.bounced ${recipient}`)) continue;
      const c = classifyReportRecipient(r);
      const detail = {
        source: report.format === 'dsn' ? 'dsn' : 'bounce_message',
        action: r.action,
        status: r.status ?? null,
        diagnostic_code: r.diagnosticCode ?? null,
        remote_mta: r.remoteMta ?? null,
        reporting_mta: report.reportingMta ?? null,
        category: c.category,
        response: c.reply,
      };
      if (r.action === 'delayed') {
        const first = !email.delayed_once && !markDelayed;
        events.push(
          makeEvent(email, first ? 'email.delivery_delayed' : 'email.delivery_attempt', { recipient, detail }),
        );
        if (first) {
          markDelayed = true;
          lastEvent ??= 'delivery_delayed';
        }
        continue;
      }
      const message =
        c.type === 'Permanent'
          ? "The recipient's mail server reported after accepting the email that it could not be delivered."
          : "The recipient's mail server gave up delivering the email after accepting it.";
      events.push(
        makeEvent(email, 'email.bounced', {
          recipient,
          extra: bounceExtra(c.type, c.subType, r.diagnosticCode ?? `smtp; ${c.reply}`, message),
          detail,
        }),
      );
      lastEvent = 'bounced';
      // The bounce text explained on the email, unless an earlier result was (insights/rules.ts).
      if (!insight) {
        const finding = inspectDelivery({
          status: 'bounced',
          response: c.reply,
          enhanced: r.status,
          category: c.category,
          recipient,
          sendingDomain: fromDomainOf(email.from_header),
        });
        if (finding) insight = { finding, onceAmong: DELIVERY_RULE_IDS };
      }
      // A block of our sending IP says nothing about the address: do not suppress it (as for SMTP replies).
      if (c.type === 'Permanent' && suppressesRecipient(c.category))
        suppress.push({ address: recipient, origin: 'bounce', reason: c.reply });
    }
  } else if (email && report.kind === 'complaint') {
    const named = (report.recipients.length ? report.recipients : recipientsOf(email)).map((recipient) => ({
      recipient,
    }));
    for (const { recipient } of matchRecipients(email, named)) {
      if (seen.has(`email.complained ${recipient}`)) continue;
      events.push(
        makeEvent(email, 'email.complained', {
          recipient,
          detail: {
            feedback_type: report.feedbackType,
            user_agent: report.userAgent ?? null,
            arrival_date: report.arrivalDate ?? null,
            source_ip: report.sourceIp ?? null,
          },
        }),
      );
      suppress.push({ address: recipient, origin: 'complaint', reason: `complaint (${report.feedbackType})` });
      lastEvent = 'complained';
    }
  } else if (email && report.kind === 'auto_reply') {
    events.push(makeEvent(email, 'email.auto_replied', { detail: { from: d.mailFrom, reason: report.reason } }));
  } else if (email) {
    events.push(
      makeEvent(email, 'email.report_ignored', {
        detail: { from: d.mailFrom, reason: report.kind === 'unknown' ? report.reason : report.kind },
      }),
    );
  }

  const subject = /^subject:[ \t]*(.*)$/im.exec(raw.subarray(0, 64 * 1024).toString('utf8'))?.[1]?.trim() ?? null;
  await withTx(deps.pool, async (tx) => {
    if (events.length) await emailEventsInsertMany(tx, [{ events, lastEvent, markDelayed, insight }]);
    for (const s of suppress) await suppressionAdd(tx, email!.team_id, s.address, s.origin, email!.id, s.reason);
    await returnPathMessageInsert(tx, {
      id: uuid(),
      team_id: d.teamId,
      email_id: email?.id ?? null,
      kind: report.kind,
      mail_from: d.mailFrom,
      rcpt_to: d.rcpt,
      subject,
      detail: report,
      raw,
    });
  });
  if (!email) deps.log.info('return-path message for an unknown email', { rcpt: d.rcpt, kind: report.kind });
  return { kind: report.kind, emailId: email?.id ?? null, events: events.map((e) => e.type) };
}

/** The domain of a From header (`Name <a@b.example>` or `a@b.example`). */
const fromDomainOf = (from: string) =>
  from
    .slice(from.lastIndexOf('@') + 1)
    .replace(/>.*$/, '')
    .toLowerCase();
