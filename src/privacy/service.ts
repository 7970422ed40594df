// Data-subject requests as a capability (/privacy/erasures, /privacy/exports): a request row (the
// address only as its keyed hash) and its job (the address sealed: lib/crypto.ts) commit together;
// the views the API answers with.
// The work itself is the jobs' (erase.job.ts, export.job.ts).
import { type AuditActor, auditRecord } from '../audit/record.js';
import { AppError, notFound } from '../errors.js';
import type { AddressHasher } from '../lib/address-hash.js';
import type { Sealer } from '../lib/crypto.js';
import { uuid } from '../lib/ids.js';
import { parseAddress } from '../mime/addresses.js';
import type { Readable } from 'node:stream';
import { enqueue } from '../queue/enqueue.js';
import { blobStream } from '../store/blobs.js';
import { withTx, type Pool } from '../store/db.js';
import { PRIVACY_ERASE_JOB, PRIVACY_EXPORT_JOB } from '../store/jobs.js';
import {
  privacyRequestById,
  privacyRequestFind,
  privacyRequestInsert,
  privacyRequestsList,
  type PrivacyKind,
  type PrivacyRequestRow,
} from '../store/privacy.js';

/**
 * An erasure starts this long after it is asked for: request logs and tracking hits wait in each
 * process's memory up to 250 ms before they are written (request-logs/recorder.ts,
 * tracking/recorder.ts), and one written after the erasure's pass would keep the address.
 */
export const ERASURE_SETTLE_MS = 2_000;

export type { PrivacyRequestRow };

/** How many requests of a kind GET /privacy/erasures and /privacy/exports list (newest first). */
export const PRIVACY_LIST_LIMIT = 100;

/** The address of a request body: required, one address, at most 320 characters (RFC 3696). */
export function subjectAddress(v: unknown): string {
  if (typeof v !== 'string' || !v.trim()) throw new AppError('missing_required_field', 'Missing `email` field.');
  if (v.length > 320) throw new AppError('validation_error', 'Invalid `email` field: longer than 320 characters.');
  const a = parseAddress(v.trim(), 'email').address.toLowerCase();
  if (!a.includes('@')) throw new AppError('validation_error', 'Invalid `email` field.');
  return a;
}

export class PrivacyRequests {
  constructor(
    private readonly pool: Pool,
    private readonly hasher: AddressHasher,
    private readonly sealer: Sealer,
  ) {}

  /**
   * Queues an erasure or an export of `email` in the team; the row as created. Its audit entry, in
   * the same transaction, names the request, never the address (an erasure must not leave it there).
   */
  async start(
    teamId: string,
    kind: PrivacyKind,
    email: string,
    actor: AuditActor,
    opts: { includeAttachments?: boolean } = {},
  ): Promise<PrivacyRequestRow> {
    const id = uuid();
    const includeAttachments = kind === 'export' && opts.includeAttachments === true;
    return withTx(this.pool, async (tx) => {
      const row = await privacyRequestInsert(tx, {
        id,
        teamId,
        kind,
        subjectHash: this.hasher.hash(email),
        includeAttachments,
      });
      await enqueue(tx, {
        kind: kind === 'erasure' ? PRIVACY_ERASE_JOB : PRIVACY_EXPORT_JOB,
        // Sealed: a job that fails for good stays in the table, and must not keep the address readable.
        payload: { request_id: id, team_id: teamId, email_sealed: this.sealer.seal(email) },
        maxAttempts: 10,
        runAt: kind === 'erasure' ? new Date(Date.now() + ERASURE_SETTLE_MS) : undefined,
      });
      await auditRecord(tx, teamId, actor, {
        action: kind === 'erasure' ? 'privacy.erasure_requested' : 'privacy.export_requested',
        target: { kind: 'privacy_request', id },
        ...(includeAttachments ? { after: { include_attachments: true } } : {}),
      });
      return row;
    });
  }

  async get(teamId: string, kind: PrivacyKind, id: string): Promise<PrivacyRequestRow> {
    const row = await privacyRequestFind(this.pool, teamId, kind, id);
    if (!row) throw notFound(kind === 'erasure' ? 'Erasure' : 'Export');
    return row;
  }

  /** The team's newest requests of one kind (the dashboard's list; at most PRIVACY_LIST_LIMIT). */
  list(teamId: string, kind: PrivacyKind): Promise<PrivacyRequestRow[]> {
    return privacyRequestsList(this.pool, teamId, kind, PRIVACY_LIST_LIMIT);
  }

  /** A completed export's document (the caller checked the signed link); undefined when there is none. */
  async exportDocument(id: string): Promise<{ stream: Readable; bytes: number; zip: boolean } | undefined> {
    const row = await privacyRequestById(this.pool, id);
    if (!row || row.kind !== 'export' || !row.result_blob) return undefined;
    return {
      stream: blobStream(this.pool, row.result_blob),
      bytes: Number(row.result_bytes),
      zip: row.include_attachments,
    };
  }
}

/** The API's view of a request (never the address). */
export const privacyRequestView = (r: PrivacyRequestRow) => ({
  object: r.kind === 'erasure' ? ('privacy_erasure' as const) : ('privacy_export' as const),
  id: r.id,
  status: r.status,
  ...(r.kind === 'export' ? { include_attachments: r.include_attachments } : {}),
  counts: r.counts,
  error: r.error,
  created_at: r.created_at.toISOString(),
  started_at: r.started_at?.toISOString() ?? null,
  completed_at: r.completed_at?.toISOString() ?? null,
});
