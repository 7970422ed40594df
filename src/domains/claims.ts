// Domain claims (Resend's POST /domains/claim, GET /domains/:id/claim, POST /domains/:id/claim/verify):
// a team proves with a TXT record that it controls a domain another team of the installation
// holds, and the domain moves to it with fresh DKIM keys (the holder's records cannot be reused).
// Statuses (the SDK's DomainClaimStatus):
//   pending     created, not yet checked;
//   failed      checked and the TXT record was not there (or DNS failed): verify again to retry;
//   verified    the record was found and the transfer waits out MAILROOM_DOMAIN_CLAIM_GRACE_SECONDS
//               (the holder is told at once, domain.updated naming the claim);
//   blocked     the record was found but the transfer is held: `grace_period` (verified again before
//               the grace passed) or `pending_scheduled_emails` (the holder has emails scheduled from
//               the domain: they would go out under keys no longer published); verify again later;
//   completed   the domain moved: deleted from the holder (domain.deleted, with the claim, on its
//               side: its webhooks and its event log), created in the claiming team with new keys;
//   superseded  another claim for the name completed first, or the same team claimed it again
//               with other settings;
//   canceled    at verification the domain was no longer held by another team (deleted, or this
//               team's already): nothing to take, add it with POST /domains;
//   expired     not completed within 7 days (Resend's expires_at).
// DNS is always checked, through the resolver domain verification uses, even in capture mode:
// a claim takes a domain away from another team, so it is never granted on trust.
import { randomBytes } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { auditRecord, SYSTEM_ACTOR, type AuditActor } from '../audit/record.js';
import { auditHeadLock } from '../store/audit-log.js';
import { AppError, notFound } from '../errors.js';
import { isUuid, uuid } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import {
  claimInsert,
  claimLatestForDomain,
  claimLatestForName,
  claimLock,
  claimLockName,
  claimMove,
  claimsAboutTeam,
  claimsSupersedeOthers,
  domainHasScheduledEmails,
  OPEN_CLAIM,
  type ClaimRow,
} from '../store/domain-claims.js';
import { domainLockByName, domainTeamByName } from '../store/domains.js';
import { checkTxtValue, createResolver } from './dns-check.js';
import type { DomainInput, Domains, NewDomainSettings } from './service.js';

/** Resend's claims expire a week after they are made (its API reference's example). */
const CLAIM_TTL_SECONDS = 7 * 86_400;
const TOKEN_PREFIX = 'mailroom-domain-claim=';

const timeOf = (pgText: string) => new Date(pgText.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')).getTime();

export class DomainClaims {
  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
    private readonly domains: Domains,
  ) {}

  view(c: ClaimRow) {
    return {
      object: 'domain_claim' as const,
      id: c.id,
      name: c.name,
      status: c.status,
      domain_id: c.domain_id,
      region: (c.settings.region as string | undefined) ?? null,
      record: { type: 'TXT' as const, name: c.name, value: c.token, ttl: 'Auto' as const },
      blocked_reason: c.blocked_reason,
      failure_reason: c.failure_reason,
      created_at: c.created_at,
      expires_at: c.expires_at,
    };
  }

  /** An open claim past its expiry becomes expired (on read, and before any move). */
  private async fresh(db: Queryable, c: ClaimRow): Promise<ClaimRow> {
    if (!c.past_expiry || !OPEN_CLAIM.includes(c.status)) return c;
    return (
      (await claimMove(db, c.id, OPEN_CLAIM, 'expired', {
        failureReason: 'The claim was not completed before it expired: start a new one.',
      })) ?? c
    );
  }

  /** POST /domains/claim → [201 new | 200 the identical open claim, unchanged, claim]. */
  async create(
    teamId: string,
    input: DomainInput,
    actor: AuditActor,
  ): Promise<{ created: boolean; claim: ReturnType<DomainClaims['view']> }> {
    const s = this.domains.settingsOf(input);
    const holder = await domainTeamByName(this.pool, s.name);
    if (!holder)
      throw new AppError(
        'validation_error',
        `The \`${s.name}\` domain is not registered by anyone here: add it with POST /domains.`,
      );
    if (holder === teamId)
      throw new AppError('validation_error', `The \`${s.name}\` domain is already one of this team's domains.`);
    return withTx(this.pool, async (tx) => {
      await claimLockName(tx, teamId, s.name);
      const before = await claimLatestForName(tx, teamId, s.name);
      const prev = before && (await this.fresh(tx, before));
      if (prev && OPEN_CLAIM.includes(prev.status)) {
        if (sameSettings(prev.settings, s)) return { created: false, claim: this.view(prev) };
        await claimMove(tx, prev.id, OPEN_CLAIM, 'superseded', {
          failureReason: 'A newer claim for this domain by the same team replaced it.',
        });
      }
      const c = await claimInsert(tx, {
        id: uuid(),
        team_id: teamId,
        // The team's later claims for the name keep the id the domain will take (Resend's placeholder).
        domain_id: prev && prev.status !== 'completed' ? prev.domain_id : uuid(),
        name: s.name,
        settings: s,
        token: TOKEN_PREFIX + randomBytes(16).toString('hex'),
        ttlSeconds: CLAIM_TTL_SECONDS,
      });
      await auditRecord(tx, teamId, actor, {
        action: 'domain.claimed',
        target: { kind: 'domain', id: c.domain_id },
        after: { name: c.name, claim_id: c.id, status: c.status },
      });
      return { created: true, claim: this.view(c) };
    });
  }

  /**
   * GET /domains/claims (Mailroom's, for the dashboard): the team's own claims in full, and claims
   * on its domains as their holder sees them: the name, status and dates, never the claiming team
   * or its record.
   */
  async aboutTeam(teamId: string) {
    const rows = await claimsAboutTeam(this.pool, teamId);
    return {
      object: 'list' as const,
      has_more: false,
      data: rows.map((c) =>
        c.mine
          ? { side: 'claimant' as const, ...this.view(c) }
          : {
              side: 'holder' as const,
              object: 'domain_claim' as const,
              id: c.id,
              name: c.name,
              status: c.status,
              verified_at: c.verified_at,
              completed_at: c.completed_at,
            },
      ),
    };
  }

  private async latest(teamId: string, domainId: string): Promise<ClaimRow> {
    const c = isUuid(domainId) ? await claimLatestForDomain(this.pool, teamId, domainId.toLowerCase()) : undefined;
    if (!c) throw notFound('Domain claim');
    return c;
  }

  /** GET /domains/:id/claim: the latest claim for the placeholder domain id. */
  async get(teamId: string, domainId: string) {
    return this.view(await this.fresh(this.pool, await this.latest(teamId, domainId)));
  }

  /**
   * POST /domains/:id/claim/verify: looks the TXT record up (outside any transaction: DNS may take
   * seconds), then decides under the claim's and the domain's row locks, so two verifications
   * racing complete a claim once.
   */
  async verify(teamId: string, domainId: string, actor: AuditActor) {
    const first = await this.fresh(this.pool, await this.latest(teamId, domainId));
    if (!OPEN_CLAIM.includes(first.status)) return this.view(first);
    const outcome = await checkTxtValue(first.name, first.token, createResolver(this.config.dnsServers));
    const settings = first.settings as unknown as NewDomainSettings;
    const keys = outcome.result === 'found' ? await this.domains.freshKeys(Boolean(settings.dkim_ed25519)) : undefined;
    const done = await withTx(this.pool, async (tx) => {
      // Locks in one order, the domain's row then the claim's: two teams' claims verified at once
      // wait on the domain, and the second finds its claim superseded. (Claim first could deadlock,
      // by reasoning, not seen in a test: the winner would supersede the claim the loser holds
      // while the loser waits for the domain.)
      const holder = await domainLockByName(tx, first.name);
      const locked = await claimLock(tx, first.id);
      if (!locked) throw notFound('Domain claim');
      const c = await this.fresh(tx, locked);
      if (!OPEN_CLAIM.includes(c.status)) return c;
      if (!holder || holder.team_id === c.team_id)
        return claimMove(tx, c.id, OPEN_CLAIM, 'canceled', {
          failureReason: holder
            ? "The domain is already one of this team's domains."
            : 'The domain is no longer held by another team: add it with POST /domains.',
        });
      if (outcome.result !== 'found' || !keys)
        return claimMove(tx, c.id, OPEN_CLAIM, 'failed', {
          failureReason: outcome.result === 'found' ? null : `${outcome.detail}: publish it, then verify again.`,
        });
      const grace = this.config.domainClaimGraceSeconds;
      if (grace > 0) {
        if (!c.verified_at) {
          const moved = await claimMove(tx, c.id, OPEN_CLAIM, 'verified');
          await this.domains.announceClaim(tx, holder, {
            id: c.id,
            status: 'verified',
            transfer_after: new Date(Date.now() + grace * 1000).toISOString(),
          });
          return moved;
        }
        if (timeOf(c.verified_at) + grace * 1000 > Date.now())
          return claimMove(tx, c.id, OPEN_CLAIM, 'blocked', { blockedReason: 'grace_period' });
      }
      if (await domainHasScheduledEmails(tx, holder.team_id, holder.id))
        return claimMove(tx, c.id, OPEN_CLAIM, 'blocked', { blockedReason: 'pending_scheduled_emails' });
      // The transfer: the holder's domain (and what hangs off it) goes, announced on its side; the
      // claiming team's is created with the id the claim named and new keys.
      await this.domains.removeClaimed(tx, holder, { id: c.id, status: 'completed' });
      await this.domains.insert(tx, c.team_id, c.domain_id, settings, keys);
      const moved = await claimMove(tx, c.id, OPEN_CLAIM, 'completed', { fromTeamId: holder.team_id });
      await claimsSupersedeOthers(tx, c.name, c.id);
      // Two teams' chain heads: taken in one order, so claims crossing between two teams cannot deadlock.
      for (const team of [c.team_id, holder.team_id].sort()) await auditHeadLock(tx, team);
      await auditRecord(tx, c.team_id, actor, {
        action: 'domain.claimed',
        target: { kind: 'domain', id: c.domain_id },
        before: { name: c.name, claim_id: c.id, status: c.status },
        after: { name: c.name, claim_id: c.id, status: 'completed' },
      });
      // The holder's log names no one from the claiming team: claims stay anonymous to their holder.
      await auditRecord(tx, holder.team_id, SYSTEM_ACTOR, {
        action: 'domain.deleted',
        target: { kind: 'domain', id: holder.id },
        before: { name: holder.name, status: holder.status },
        after: { reason: 'claimed by another team (DNS ownership proven)', claim_id: c.id },
      });
      return moved;
    });
    return this.view(done ?? first);
  }
}

function sameSettings(stored: Record<string, unknown>, s: NewDomainSettings): boolean {
  return (Object.keys(s) as (keyof NewDomainSettings)[]).every((k) => stored[k] === s[k]);
}
