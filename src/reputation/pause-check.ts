// The reputation guard's check on THE way in (emails/accept.ts, emails/send-guard.ts): refuses a
// send from a domain the guard paused. Its own small piece, built before the acceptor, so that the
// guard (which resumes broadcasts, and so sits above the send path) is not needed to build it.
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import type { SendGuard } from '../emails/send-guard.js';
import type { Pool } from '../store/db.js';
import { reputationFind, type GuardState } from '../store/reputation.js';

const CACHE_MS = 2_000; // the send path reads an unpaused domain's state at most this often per process
/** Marks the broadcasts the guard paused (their pause_reason), so a resume of the domain resumes them. */
export const GUARD_MARK = 'reputation guard';

export class PauseCheck {
  private readonly cache = new Map<string, { state: GuardState; reason: string | null; until: number }>();
  // Bumped by forget(): a read begun before a change must not put the old state back in the cache.
  private generation = 0;
  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
  ) {}

  /** The acceptor's guard: throws AppError('domain_paused') for list mail (and transactional, when so configured) from a paused domain. */
  readonly check: SendGuard = async (teamId, domain, bulk) => {
    const { config } = this;
    if (!config.reputationGuard || (!bulk && !config.reputationPauseTransactional)) return;
    const now = Date.now();
    let hit = this.cache.get(domain.id);
    // Only `ok` is trusted from the cache: a pause is read again before refusing, so a resume
    // (made by another process) takes effect at once; pauses are rare and refuse once per page.
    if (!hit || hit.until <= now || hit.state === 'paused') {
      const generation = this.generation;
      const r = await reputationFind(this.pool, domain.id);
      hit = { state: r?.state ?? 'ok', reason: r?.reason ?? null, until: now + CACHE_MS };
      if (generation === this.generation) {
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(domain.id, hit);
      }
    }
    if (hit.state === 'paused') {
      throw new AppError(
        'domain_paused',
        `The domain \`${domain.name}\` is paused by the ${GUARD_MARK}: ${hit.reason ?? 'paused'}. A person must resume it (POST /domains/${domain.id}/reputation/resume, or the dashboard).`,
      );
    }
  };

  /** The domain's state changed here: read it again next time. */
  forget(domainId: string): void {
    this.generation++;
    this.cache.delete(domainId);
  }
}
