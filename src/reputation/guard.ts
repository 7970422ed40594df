// The reputation guard: per team and sending domain, judges the hard-bounce and complaint rates
// (judge.ts) over the counters the trigger of migration 0024 keeps (email_events_count_rates since
// 0034, which also queues the `reputation.check` job in SQL), and acts: `warning` comes and
// goes by itself; `paused` stops the domain's list mail (its sending broadcasts pause with the
// reason, new broadcast pages and automation sends are refused on the way in (pause-check.ts), automation steps
// are held) and stays until a person resumes it. Every change of state is a `domain.updated`
// webhook with `reputation: {state, reason, since, previous_state}`. After a resume the guard
// judges only mail counted since then (the resume bucket's earlier counts are its baseline).
import type { Config } from '../config/schema.js';
import { AppError, notFound } from '../errors.js';
import type { Broadcasts } from '../broadcasts/service.js';
import type { Domains } from '../domains/service.js';
import { isUuid } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';
import type { Job } from '../queue/worker.js';
import { broadcastPauseAuto } from '../store/broadcasts.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { domainFindById, type DomainRow } from '../store/domains.js';
import { automationStepJobsWakeForTeam, deliverJobsHoldForBroadcast } from '../store/jobs.js';
import {
  broadcastsPausedByGuard,
  broadcastsSendingFromDomain,
  bucketOf,
  reputationAlerts,
  reputationBucket,
  reputationFind,
  reputationHourly,
  reputationLock,
  reputationOverview,
  reputationResume,
  reputationSet,
  reputationSums,
  reputationWarnings,
  ZERO_COUNTS,
  type Counts,
  type GuardState,
  type ReputationRow,
} from '../store/reputation.js';
import { judge, ratesOf, type Window } from './judge.js';
import { GUARD_MARK, type PauseCheck } from './pause-check.js';

export { GUARD_MARK };

/** `pauses`: the acceptor's check (pause-check.ts), told when a state changes; `broadcasts`: to resume the ones it paused. */
export interface GuardDeps {
  pool: Pool;
  config: Config;
  log: Logger;
  domains: Domains;
  pauses: PauseCheck;
  broadcasts: Broadcasts;
}
export interface CheckPayload {
  domain_id: string;
  team_id: string;
}

const HOUR = 3600_000;
const WEEK = 7 * 24 * HOUR;

const minus = (a: Counts, b: Counts): Counts => ({
  delivered: Math.max(0, a.delivered - b.delivered),
  bounced: Math.max(0, a.bounced - b.bounced),
  hard_bounced: Math.max(0, a.hard_bounced - b.hard_bounced),
  complained: Math.max(0, a.complained - b.complained),
});

export class ReputationGuard {
  constructor(private readonly deps: GuardDeps) {}

  /** The windows the guard judges: the last hour and the last 7 days, from the last resume on. */
  private async judgedWindows(db: Queryable, domainId: string, r: ReputationRow, now: Date): Promise<Window[]> {
    const starts = [bucketOf(new Date(now.getTime() - HOUR)), bucketOf(new Date(now.getTime() - WEEK))];
    const rb = r.resumed_at ? bucketOf(new Date(r.resumed_at)) : undefined;
    const from = starts.map((s) => (rb && rb > s ? rb : s));
    const sums = await reputationSums(db, domainId, from);
    const base = r.baseline ?? ZERO_COUNTS;
    const counts = sums.map((c, i) => (rb && from[i].getTime() === rb.getTime() ? minus(c, base) : c));
    return [
      { label: 'the last hour', counts: counts[0] },
      { label: 'the last 7 days', counts: counts[1] },
    ];
  }

  /**
   * Judges one domain now and applies the verdict (the `reputation.check` job, the periodic
   * re-look). A paused domain stays paused. Returns the state after.
   */
  async evaluate(teamId: string, domainId: string): Promise<GuardState | undefined> {
    const { pool, config, log, domains } = this.deps;
    if (!config.reputationGuard) return undefined;
    const d = await domainFindById(pool, teamId, domainId);
    if (!d) return undefined;
    let changed = false;
    const state = await withTx(pool, async (tx) => {
      const r = await reputationLock(tx, teamId, domainId);
      if (r.state === 'paused') return r.state;
      const v = judge(config, await this.judgedWindows(tx, domainId, r, new Date()));
      if (v.state === r.state) {
        if (v.reason !== r.reason) await reputationSet(tx, domainId, { state: v.state, reason: v.reason });
        return r.state;
      }
      await reputationSet(tx, domainId, { state: v.state, reason: v.reason, since: true });
      await domains.announceReputation(tx, d, {
        state: v.state,
        reason: v.reason,
        since: new Date().toISOString(),
        previous_state: r.state,
      });
      changed = true;
      if (v.state === 'paused') {
        const paused = await this.pauseBroadcasts(tx, d, v.reason!);
        log.warn('reputation guard paused a domain', {
          domain: d.name,
          domain_id: d.id,
          reason: v.reason,
          broadcasts_paused: paused,
        });
      } else {
        log.info('reputation guard state changed', {
          domain: d.name,
          domain_id: d.id,
          from: r.state,
          to: v.state,
          reason: v.reason,
        });
      }
      return v.state;
    });
    // After the commit: a send check that read the state before it must not keep `ok` (issue 26's
    // CI: a broadcast started just after the pause went out from the paused domain).
    if (changed) this.deps.pauses.forget(domainId);
    return state;
  }

  /** The domain's sending broadcasts pause with the reason; their deliveries not yet started wait. */
  private async pauseBroadcasts(tx: Queryable, d: DomainRow, reason: string): Promise<number> {
    let n = 0;
    for (const id of await broadcastsSendingFromDomain(tx, d.team_id, d.name)) {
      if (await broadcastPauseAuto(tx, id, `${GUARD_MARK}: ${d.name} is paused: ${reason}`)) {
        await deliverJobsHoldForBroadcast(tx, id);
        n++;
      }
    }
    return n;
  }

  private async domain(teamId: string, id: string): Promise<DomainRow> {
    const d = isUuid(id) ? await domainFindById(this.deps.pool, teamId, id.toLowerCase()) : undefined;
    if (!d) throw notFound('Domain');
    return d;
  }

  /**
   * POST /domains/:id/reputation/resume: a person lifts the pause. The guard then judges only mail
   * counted from now on; the broadcasts it paused resume and held automation steps are due at once.
   */
  async resume(teamId: string, id: string, by: string) {
    const { pool, domains, log, broadcasts: svc } = this.deps;
    const d = await this.domain(teamId, id);
    const resumed = await withTx(pool, async (tx) => {
      const r = await reputationLock(tx, teamId, d.id);
      if (r.state !== 'paused') return false;
      const bucket = bucketOf(new Date());
      await reputationResume(tx, d.id, by, {
        ...(await reputationBucket(tx, d.id, bucket)),
        bucket: bucket.toISOString(),
      });
      await domains.announceReputation(tx, d, {
        state: 'ok',
        reason: `resumed by ${by}`,
        since: new Date().toISOString(),
        previous_state: 'paused',
      });
      return true;
    });
    if (!resumed)
      throw new AppError(
        'validation_error',
        `The domain \`${d.name}\` is not paused by the reputation guard: there is nothing to resume.`,
      );
    this.deps.pauses.forget(d.id);
    let broadcasts = 0;
    for (const b of await broadcastsPausedByGuard(pool, teamId, d.name, GUARD_MARK)) {
      await svc.resume(teamId, b).then(
        () => broadcasts++,
        (err) =>
          log.warn('reputation guard: a paused broadcast did not resume', {
            broadcast_id: b,
            err: (err as Error).message,
          }),
      );
    }
    await automationStepJobsWakeForTeam(pool, teamId);
    log.info('reputation guard resumed a domain', {
      domain: d.name,
      domain_id: d.id,
      by,
      broadcasts_resumed: broadcasts,
    });
    return this.view(teamId, d.id);
  }

  /** GET /domains/:id/reputation: state, thresholds, rates of both windows, and hourly points over 7 days. */
  async view(teamId: string, id: string) {
    const { pool, config } = this.deps;
    const d = await this.domain(teamId, id);
    const now = new Date();
    const r = await reputationFind(pool, d.id);
    const [hour, week] = await reputationSums(pool, d.id, [
      bucketOf(new Date(now.getTime() - HOUR)),
      bucketOf(new Date(now.getTime() - WEEK)),
    ]);
    const first = new Date(Math.floor(now.getTime() / HOUR) * HOUR - 167 * HOUR);
    const byHour = new Map((await reputationHourly(pool, d.id, first)).map((p) => [new Date(p.hour).getTime(), p]));
    const series = Array.from({ length: 168 }, (_, i) => {
      const at = first.getTime() + i * HOUR;
      const c: Counts = byHour.get(at) ?? ZERO_COUNTS;
      return {
        hour: new Date(at).toISOString(),
        delivered: c.delivered,
        bounced: c.bounced,
        hard_bounced: c.hard_bounced,
        complained: c.complained,
        ...ratesOf(c),
      };
    });
    const win = (c: Counts) => ({ ...c, ...ratesOf(c) });
    return {
      object: 'domain_reputation' as const,
      domain_id: d.id,
      name: d.name,
      enabled: config.reputationGuard,
      state: r?.state ?? 'ok',
      reason: r?.reason ?? null,
      since: r?.since ?? null,
      resumed_at: r?.resumed_at ?? null,
      resumed_by: r?.resumed_by ?? null,
      pauses: { list_mail: true, transactional: config.reputationPauseTransactional },
      thresholds: {
        complaint_rate: { warn: config.reputationComplaintWarn, act: config.reputationComplaintAct },
        bounce_rate: { warn: config.reputationBounceWarn, act: config.reputationBounceAct },
        min_sample: config.reputationMinSample,
      },
      rates: { last_hour: win(hour), last_7_days: win(week) },
      series,
    };
  }

  /** The team's domains in warning or paused (the dashboard's banner). */
  async alerts(teamId: string) {
    return { object: 'list' as const, data: await reputationAlerts(this.deps.pool, teamId) };
  }

  /** Worker: the `reputation.check` job. */
  job() {
    return async (job: Job<CheckPayload>): Promise<void> => {
      await this.evaluate(job.payload.team_id, job.payload.domain_id);
    };
  }

  /** Worker, periodic: warnings end by themselves as the windows slide. */
  async sweep(): Promise<number> {
    let n = 0;
    for (const w of await reputationWarnings(this.deps.pool))
      if ((await this.evaluate(w.team_id, w.domain_id)) !== 'warning') n++;
    return n;
  }
}

/** Every sending domain with mail in the last 7 days: sums of the last hour and the 7 days, and the guard's state (Prometheus). */
export function reputationNow(pool: Pool) {
  const now = Date.now();
  return reputationOverview(pool, bucketOf(new Date(now - HOUR)), bucketOf(new Date(now - WEEK)));
}
