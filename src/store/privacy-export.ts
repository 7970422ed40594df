// The reads of a data-subject export (issue 29): everything one team holds about one address, each
// kind of data in one statement, at most EXPORT_LIMIT rows per kind (newest first; the document
// says when a kind was cut). `re` is the address pattern of privacy/address-pattern.ts.
import type { Queryable } from './db.js';

export const EXPORT_LIMIT = 10_000;

const iso = (col: string) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

async function list(db: Queryable, sql: string, params: unknown[]): Promise<unknown[]> {
  const { rows } = await db.query<{ j: unknown }>(sql, params);
  return rows.map((r) => r.j);
}

export async function exportContact(db: Queryable, teamId: string, addr: string) {
  const { rows } = await db.query(
    `SELECT c.id, c.email, c.first_name, c.last_name, c.unsubscribed, c.properties,
       ${iso('c.created_at')} AS created_at, ${iso('c.updated_at')} AS updated_at,
       coalesce((SELECT json_agg(json_build_object('id', s.id, 'name', s.name, 'joined_at', ${iso('cs.created_at')}))
         FROM contact_segments cs JOIN segments s ON s.id = cs.segment_id
         WHERE cs.contact_id = c.id), '[]') AS segments,
       coalesce((SELECT json_agg(json_build_object('id', t.id, 'name', t.name, 'subscription', ct.subscription,
           'updated_at', ${iso('ct.updated_at')}))
         FROM contact_topics ct JOIN topics t ON t.id = ct.topic_id WHERE ct.contact_id = c.id), '[]') AS topics
     FROM contacts c WHERE c.team_id = $1 AND lower(c.email) = $2`,
    [teamId, addr],
  );
  return rows[0] ?? null;
}

/** Sent emails addressed to it, with their bodies (the raw MIME is not repeated: the bodies are). */
export const exportEmails = (db: Queryable, teamId: string, re: string) =>
  list(
    db,
    `SELECT json_build_object('id', e.id, 'created_at', ${iso('e.created_at')}, 'from', e.from_header, 'to', e.to_addrs,
       'cc', e.cc_addrs, 'bcc', e.bcc_addrs, 'reply_to', e.reply_to, 'subject', e.subject, 'html', e.html,
       'text', e.text_body, 'tags', e.tags, 'last_event', e.last_event, 'raw_size', octet_length(e.raw)) AS j
     FROM emails e WHERE e.team_id = $1 AND array_to_string(e.to_addrs || e.cc_addrs || e.bcc_addrs, ' ') ~* $2
     ORDER BY e.created_at DESC LIMIT ${EXPORT_LIMIT}`,
    [teamId, re],
  );

/** Events of those emails for it, and any other event naming it (contact.*, suppression.*, email.received). */
export const exportEvents = (db: Queryable, teamId: string, re: string, emailIds: string[]) =>
  list(
    db,
    `SELECT json_build_object('id', ev.id, 'type', ev.type, 'email_id', ev.email_id, 'recipient', ev.recipient,
       'created_at', ${iso('ev.created_at')}, 'data', ev.data) AS j
     FROM email_events ev
     WHERE ev.team_id = $1 AND (ev.email_id = ANY($3::uuid[]) OR ev.recipient ~* $2 OR ev.data::text ~* $2)
     ORDER BY ev.created_at DESC LIMIT ${EXPORT_LIMIT}`,
    [teamId, re, emailIds],
  );

export const exportReceived = (db: Queryable, teamId: string, re: string) =>
  list(
    db,
    `SELECT json_build_object('id', r.id, 'created_at', ${iso('r.created_at')}, 'from', r.from_addr,
     'mail_from', r.mail_from,
       'to', r.to_addrs, 'cc', r.cc_addrs, 'reply_to', r.reply_to, 'subject', r.subject, 'html', r.html,
       'text', r.text_body,
       'attachments', coalesce((SELECT json_agg(json_build_object('filename', a.filename,
         'content_type', a.content_type,
         'size', a.size) ORDER BY a.position) FROM received_attachments a WHERE a.email_id = r.id), '[]')) AS j
     FROM received_emails r
     WHERE r.team_id = $1
       AND (array_to_string(r.to_addrs || r.cc_addrs || r.bcc_addrs || r.reply_to || r.received_for, ' ')
       || ' ' || r.from_addr || ' ' || r.mail_from) ~* $2
     ORDER BY r.created_at DESC LIMIT ${EXPORT_LIMIT}`,
    [teamId, re],
  );

export const exportAutomationRuns = (db: Queryable, teamId: string, addr: string) =>
  list(
    db,
    `SELECT json_build_object('id', r.id, 'automation_id', r.automation_id, 'automation', a.name, 'status', r.status,
       'event', r.event, 'started_at', ${iso('r.started_at')}, 'completed_at', ${iso('r.completed_at')},
       'steps', coalesce((SELECT json_agg(json_build_object('key', s.key, 'type', s.type, 'status', s.status,
         'output', s.output, 'completed_at', ${iso('s.completed_at')}) ORDER BY s.created_at)
         FROM automation_run_steps s WHERE s.run_id = r.id), '[]')) AS j
     FROM automation_runs r JOIN automations a ON a.id = r.automation_id
     WHERE r.team_id = $1 AND lower(r.email) = $2 ORDER BY r.created_at DESC LIMIT ${EXPORT_LIMIT}`,
    [teamId, addr],
  );

export const exportCustomEvents = (db: Queryable, teamId: string, addr: string) =>
  list(
    db,
    `SELECT json_build_object('id', e.id, 'name', e.name, 'payload', e.payload,
     'created_at', ${iso('e.created_at')}) AS j
     FROM custom_events e WHERE e.team_id = $1 AND lower(e.email) = $2
     ORDER BY e.created_at DESC LIMIT ${EXPORT_LIMIT}`,
    [teamId, addr],
  );

export async function exportSuppression(db: Queryable, teamId: string, addr: string) {
  const { rows } = await db.query(
    `SELECT origin, reason, ${iso('created_at')} AS created_at FROM suppressions WHERE team_id = $1 AND email = $2`,
    [teamId, addr],
  );
  return rows[0] ?? null;
}
