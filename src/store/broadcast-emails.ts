// A page of a broadcast's emails, committed in one statement with their `email.sent` events (data
// as events/email-events.ts eventData() makes it, built here from the same values) and their
// delivery jobs. The emails share everything but id, Message-ID, address, subject and
// personalization values, so the page travels as a few parallel arrays instead of one JSON row per
// email, and keeps no body (the broadcast holds the message: emails/deferred.ts). Its copies are
// delivered in runs of DELIVERY_BATCH per destination domain, one job each (store/jobs.ts).
import type { Queryable } from './db.js';
import { DELIVER_BATCH_JOB, deliverBatchJobsSql, JOBS_CHANNEL } from './jobs.js';

export interface BroadcastEmailPage {
  team_id: string; domain_id: string; api_key_id: string | null; from_header: string; reply_to: string[];
  headers: { name: string; value: string }[] | null; topic_id: string | null; list_id: string; broadcast_id: string;
  /** ISO: the emails' created_at, when their delivery jobs are due (jobs.priority puts them behind transactional mail) */
  created_at: string; region: string;
  ids: string[]; message_ids: string[]; addresses: string[]; recipient_domains: string[]; subjects: string[]; personalizations: unknown[];
}

export async function broadcastEmailsInsert(db: Queryable, p: BroadcastEmailPage): Promise<void> {
  if (!p.ids.length) return;
  await db.query(
    `WITH r AS (SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::jsonb[]) AS r (id, message_id, address, rcpt_domain, subject, p)),
     e AS (
       INSERT INTO emails (id, team_id, domain_id, api_key_id, source, message_id, from_header, to_addrs, reply_to, subject, headers, last_event, created_at,
                           topic_id, list_unsubscribe, list_id, broadcast_id, personalization)
       SELECT r.id, $7, $8, $9, 'broadcast', r.message_id, $10, ARRAY[r.address], $11::text[], r.subject, $12::jsonb, 'sent', $13::timestamptz,
              $14::uuid, true, $15, $16::uuid, r.p FROM r),
     ev AS (
       INSERT INTO email_events (id, email_id, team_id, type, recipient, data, created_at)
       SELECT gen_random_uuid(), r.id, $7, 'email.sent', NULL,
              jsonb_build_object('broadcast_id', $16::uuid, 'email_id', r.id, 'created_at', $19::text, 'from', $10::text, 'to', jsonb_build_array(r.address),
                'subject', r.subject, 'message_id', r.message_id, 'tags', '{}'::jsonb)
                || CASE WHEN jsonb_array_length(coalesce($12::jsonb, '[]')) > 0 THEN jsonb_build_object('headers', $12::jsonb) ELSE '{}'::jsonb END,
              $13::timestamptz FROM r),
     j AS (${deliverBatchJobsSql('r', '$7', '$16', '$13', '$17')})
     SELECT pg_notify($18, '${DELIVER_BATCH_JOB}')`,
    [p.ids, p.message_ids, p.addresses, p.recipient_domains, p.subjects, p.personalizations.map((x) => JSON.stringify(x)),
      p.team_id, p.domain_id, p.api_key_id, p.from_header, p.reply_to, p.headers === null ? null : JSON.stringify(p.headers), p.created_at,
      p.topic_id, p.list_id, p.broadcast_id, p.region, JOBS_CHANNEL, p.created_at],
  );
}
