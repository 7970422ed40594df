// The `privacy.erase` job (issue 29): one address erased from one team, as named steps, each a
// series of short statements (store/privacy-erasure.ts). The keyed hash is written first, so a
// delivery that starts while the erasure runs is already held; the contact goes with a
// contact.deleted event (its data without the address). Every step only touches rows that still
// mention the address: a crash part-way is resumed by the job's next attempt, and a second
// erasure of the same address finds nothing (its counts are zero).
import type { Sealer } from '../lib/crypto.js';
import type { Logger } from '../lib/log.js';
import type { AddressHasher } from '../lib/address-hash.js';
import type { Job } from '../queue/worker.js';
import { recordEvent } from '../contacts/service.js';
import { contactDelete } from '../store/contacts.js';
import { withTx, type Pool } from '../store/db.js';
import {
  erasedAddress,
  erasureAddressedEmails,
  erasureAutomationRuns,
  erasureContacts,
  erasureContactsRedact,
  erasureCustomEvents,
  erasureEmailEvents,
  erasureEmails,
  erasureExports,
  erasureIdempotencyKeys,
  erasureImportRows,
  erasureReceivedEmails,
  erasureRequestLogs,
  erasureReturnPathMessages,
  erasureSuppress,
  erasureWebhookAttempts,
  type ErasureScope,
} from '../store/privacy-erasure.js';
import { jobsRedactPending } from '../store/jobs.js';
import { privacyRequestFinish, privacyRequestProgress, privacyRequestStart } from '../store/privacy.js';
import { addressPattern } from './address-pattern.js';

export interface ErasePayload {
  request_id: string;
  team_id: string;
  /** the address, sealed (lib/crypto.ts Sealer) */
  email_sealed: string;
}

export function privacyEraseJob(deps: { pool: Pool; hasher: AddressHasher; sealer: Sealer; log: Logger }) {
  const { pool } = deps;
  return async (job: Job<ErasePayload>): Promise<void> => {
    const { request_id: id, team_id: teamId } = job.payload;
    const email = deps.sealer.open(job.payload.email_sealed);
    const hash = deps.hasher.hash(email);
    const s: ErasureScope = {
      teamId,
      addr: email.trim().toLowerCase(),
      re: addressPattern(email),
      replacement: erasedAddress(hash),
    };
    // A run resumed after a crash adds to what the first one counted.
    const counts: Record<string, number> = { ...(await privacyRequestStart(pool, id)) };
    const add = (name: string, n: number) => {
      counts[name] = (counts[name] ?? 0) + n;
    };
    const step = async (name: string, run: () => Promise<number>) => {
      add(name, await run());
      await privacyRequestProgress(pool, id, counts);
    };
    await step('suppressions', () => erasureSuppress(pool, s, hash));
    const contacts = await erasureContacts(pool, s);
    add(
      'segment_memberships',
      contacts.reduce((n, c) => n + c.segments, 0),
    );
    add(
      'topic_choices',
      contacts.reduce((n, c) => n + c.topics, 0),
    );
    await step('contacts', async () => {
      let n = 0;
      for (const c of contacts) {
        await withTx(pool, async (tx) => {
          const row = await contactDelete(tx, teamId, { id: c.id });
          if (!row) return;
          n++;
          const bare = { ...row, email: s.replacement, first_name: null, last_name: null, properties: {} };
          await recordEvent(tx, 'contact.deleted', bare);
        });
      }
      return n;
    });
    await step('contact_mentions', () => erasureContactsRedact(pool, s));
    await step('import_rows', () => erasureImportRows(pool, s));
    await step('custom_events', () => erasureCustomEvents(pool, s));
    await step('automation_runs', () => erasureAutomationRuns(pool, s));
    const sent = await erasureEmails(pool, s);
    add('emails_addressed', sent.addressed.length);
    add('emails_content_removed', sent.contentRemoved);
    add('emails_redacted', sent.redacted);
    await privacyRequestProgress(pool, id, counts);
    const addressed = await erasureAddressedEmails(pool, s);
    await step('email_events', () => erasureEmailEvents(pool, s, addressed));
    await step('return_path_messages', () => erasureReturnPathMessages(pool, s, addressed));
    const [receivedDeleted, receivedRedacted] = await erasureReceivedEmails(pool, s);
    add('received_emails', receivedDeleted);
    add('received_emails_redacted', receivedRedacted);
    await step('request_logs', () => erasureRequestLogs(pool, s));
    await step('webhook_attempts', () => erasureWebhookAttempts(pool, s));
    await step('idempotency_keys', () => erasureIdempotencyKeys(pool, s));
    await step('pending_jobs', () => jobsRedactPending(pool, teamId, s.re, s.replacement, job.id));
    await step('exports', () => erasureExports(pool, teamId, hash));
    await privacyRequestFinish(pool, id, { counts });
    deps.log.info('privacy erasure completed', { request_id: id, team_id: teamId, counts });
  };
}
