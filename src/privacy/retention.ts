// Per-team retention (issue 29, GET/PATCH /privacy/retention): how many days each kind of data is
// kept, under the global settings as the ceiling. A kind a team has not set keeps its default:
// the global setting where one exists (bodies and received mail: MAILROOM_RETENTION_DAYS; request
// logs and webhook payloads: MAILROOM_LOG_RETENTION_DAYS), otherwise kept (null: no purge).
// The purges are the maintenance jobs (maintenance/worker.ts: emails, received_emails,
// request_logs, privacy.retention) and webhooks.retention, which read team_retention in SQL.
import type { Config } from '../config/schema.js';
import { type AuditActor, auditRecord } from '../audit/record.js';
import { AppError } from '../errors.js';
import { withTx, type Pool } from '../store/db.js';
import {
  RETENTION_KINDS,
  teamRetentionGet,
  teamRetentionSet,
  type RetentionKind,
  type TeamRetention,
} from '../store/privacy.js';

/** The ceiling of a kind with no global setting: the largest any retention setting accepts. */
export const RETENTION_MAX_DAYS = 3650;

export function retentionLimits(config: Pick<Config, 'retentionDays' | 'logRetentionDays'>) {
  const maximum: Record<RetentionKind, number> = {
    email_bodies: config.retentionDays,
    received_emails: config.retentionDays,
    request_logs: config.logRetentionDays,
    webhook_payloads: config.logRetentionDays,
    tracking: RETENTION_MAX_DAYS,
    events: RETENTION_MAX_DAYS,
    automation_runs: RETENTION_MAX_DAYS,
  };
  const defaults: Record<RetentionKind, number | null> = {
    email_bodies: config.retentionDays,
    received_emails: config.retentionDays,
    request_logs: config.logRetentionDays,
    webhook_payloads: config.logRetentionDays,
    tracking: null,
    events: null,
    automation_runs: null,
  };
  return { maximum, defaults };
}

const field = (k: RetentionKind) => `${k}_days`;

/** Checks a PATCH body: each known field an integer from 1 to its maximum, or null (the default). */
export function retentionChange(body: unknown, config: Pick<Config, 'retentionDays' | 'logRetentionDays'>) {
  if (!body || typeof body !== 'object' || Array.isArray(body))
    throw new AppError('validation_error', 'The body must be a JSON object.');
  const { maximum } = retentionLimits(config);
  const change: Partial<TeamRetention> = {};
  for (const [name, v] of Object.entries(body)) {
    const k = RETENTION_KINDS.find((x) => field(x) === name);
    if (!k)
      throw new AppError(
        'validation_error',
        `Unknown field \`${name}\`: expected ${RETENTION_KINDS.map(field).join(', ')}.`,
      );
    if (v === null) change[k] = null;
    else if (typeof v !== 'number' || !Number.isInteger(v) || v < 1)
      throw new AppError('validation_error', `\`${name}\` must be a whole number of days (1 or more) or null.`);
    else if (v > maximum[k])
      throw new AppError(
        'validation_error',
        `\`${name}\` must be at most ${maximum[k]} days: the instance keeps this data no longer than that.`,
      );
    else change[k] = v;
  }
  return change;
}

export class TeamRetentionSettings {
  constructor(
    private readonly pool: Pool,
    private readonly config: Pick<Config, 'retentionDays' | 'logRetentionDays'>,
  ) {}

  view(stored: TeamRetention) {
    const { maximum, defaults } = retentionLimits(this.config);
    const out: Record<string, unknown> = { object: 'privacy_retention' };
    for (const k of RETENTION_KINDS) out[field(k)] = stored[k] ?? defaults[k];
    out.custom = RETENTION_KINDS.filter((k) => stored[k] !== null).map(field);
    out.defaults = Object.fromEntries(RETENTION_KINDS.map((k) => [field(k), defaults[k]]));
    out.maximum = Object.fromEntries(RETENTION_KINDS.map((k) => [field(k), maximum[k]]));
    return out;
  }

  async get(teamId: string) {
    return this.view(await teamRetentionGet(this.pool, teamId));
  }

  /** Changes the team's settings, with an audit entry of the values before and after (one transaction). */
  async update(teamId: string, body: unknown, actor: AuditActor) {
    const change = retentionChange(body, this.config);
    return withTx(this.pool, async (tx) => {
      const before = await teamRetentionGet(tx, teamId);
      const after = await teamRetentionSet(tx, teamId, change);
      await auditRecord(tx, teamId, actor, {
        action: 'privacy.retention_changed',
        target: { kind: 'team', id: teamId },
        before: { ...before },
        after: { ...after },
      });
      return this.view(after);
    });
  }
}
