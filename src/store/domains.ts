// Sending domains. Every query but the background re-check claim is scoped to a team.
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export type RecordState = 'not_started' | 'pending' | 'verified' | 'failed' | 'temporary_failure';
export interface RecordCheck {
  status: RecordState;
  checked_at?: string;
  failing_since?: string; // when a verified record first went missing
  detail?: string;
}

export interface DomainRow {
  id: string;
  team_id: string;
  name: string;
  region: string;
  status: string;
  custom_return_path: string;
  open_tracking: boolean;
  click_tracking: boolean;
  tls: 'opportunistic' | 'enforced';
  sending: boolean;
  receiving: boolean;
  tracking_subdomain: string | null;
  dkim_selector: string;
  dkim_algorithm: string;
  dkim_public_key: string;
  dkim_private_key: string;
  dkim_ed25519_public_key: string | null; // the optional second key (RFC 8463), null when not enabled
  dkim_ed25519_private_key: string | null; // sealed
  record_status: Record<string, RecordCheck>;
  verify_started_at: Date | null;
  verified_at: Date | null;
  created_at: string; // Postgres text format
}

const COLUMNS = `id, team_id, name, region, status, custom_return_path, open_tracking, click_tracking, tls, sending,
  receiving, tracking_subdomain, dkim_selector, dkim_algorithm, dkim_public_key, dkim_private_key, dkim_ed25519_public_key, dkim_ed25519_private_key, record_status,
  verify_started_at, verified_at, created_at::text AS created_at`;

export async function domainInsert(
  db: Queryable,
  d: Omit<DomainRow, 'status' | 'record_status' | 'verify_started_at' | 'verified_at' | 'created_at'>,
): Promise<DomainRow> {
  const { rows } = await db.query<DomainRow>(
    `INSERT INTO domains (id, team_id, name, region, custom_return_path, open_tracking, click_tracking, tls, sending, receiving,
       tracking_subdomain, dkim_selector, dkim_algorithm, dkim_public_key, dkim_private_key, dkim_ed25519_public_key, dkim_ed25519_private_key)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) RETURNING ${COLUMNS}`,
    [
      d.id,
      d.team_id,
      d.name,
      d.region,
      d.custom_return_path,
      d.open_tracking,
      d.click_tracking,
      d.tls,
      d.sending,
      d.receiving,
      d.tracking_subdomain,
      d.dkim_selector,
      d.dkim_algorithm,
      d.dkim_public_key,
      d.dkim_private_key,
      d.dkim_ed25519_public_key,
      d.dkim_ed25519_private_key,
    ],
  );
  return rows[0];
}

/**
 * Sets (or with null removes) the domain's Ed25519 DKIM key. Its record's verification state is
 * dropped with the old key: a new key is pending until its own record is found.
 */
export async function domainSetEd25519Key(
  db: Queryable,
  teamId: string,
  id: string,
  key: { publicKey: string; sealedPrivateKey: string } | null,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE domains SET dkim_ed25519_public_key = $3, dkim_ed25519_private_key = $4, record_status = record_status - 'dkim_ed25519', updated_at = now()
     WHERE team_id = $1 AND id = $2`,
    [teamId, id, key?.publicKey ?? null, key?.sealedPrivateKey ?? null],
  );
  return Boolean(rowCount);
}

export async function domainFindById(db: Queryable, teamId: string, id: string): Promise<DomainRow | undefined> {
  const { rows } = await db.query<DomainRow>(`SELECT ${COLUMNS} FROM domains WHERE team_id = $1 AND id = $2`, [
    teamId,
    id,
  ]);
  return rows[0];
}

/** A domain whatever its team: only for system mail (owned by the system team, sent from the operator's domain). */
export async function domainFindByIdAnyTeam(db: Queryable, id: string): Promise<DomainRow | undefined> {
  const { rows } = await db.query<DomainRow>(`SELECT ${COLUMNS} FROM domains WHERE id = $1`, [id]);
  return rows[0];
}

/** The team's domain with this exact name (the sending path resolves From domains this way). */
export async function domainFindByName(db: Queryable, teamId: string, name: string): Promise<DomainRow | undefined> {
  const { rows } = await db.query<DomainRow>(
    `SELECT ${COLUMNS} FROM domains WHERE team_id = $1 AND lower(name) = lower($2)`,
    [teamId, name],
  );
  return rows[0];
}

/** What the inbound MX needs to route a recipient host: the domain named so, or whose return-path host it is. */
export interface InboundDomain {
  id: string;
  team_id: string;
  name: string;
  custom_return_path: string;
  sending: boolean;
  receiving: boolean;
  receiving_status: string | null;
}

export async function domainsFindForInboundHost(db: Queryable, host: string): Promise<InboundDomain[]> {
  // A return-path host is <custom_return_path>.<name>; its parent domains are the host's suffixes.
  const labels = host.split('.');
  const parents = labels.slice(1).map((_, i) => labels.slice(i + 1).join('.'));
  const { rows } = await db.query<InboundDomain>(
    `SELECT id, team_id, name, custom_return_path, sending, receiving, record_status->'receiving_mx'->>'status' AS receiving_status
     FROM domains WHERE lower(name) = $1 OR (lower(name) = ANY($2::text[]) AND lower(custom_return_path || '.' || name) = $1)`,
    [host, parents],
  );
  return rows;
}

export async function domainExistsByName(db: Queryable, name: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM domains WHERE lower(name) = lower($1)', [name]);
  return Boolean(rowCount);
}

export async function domainList(db: Queryable, teamId: string, page: PageQuery): Promise<Page<DomainRow>> {
  return paginate<DomainRow>(db, { table: 'domains', columns: COLUMNS, teamId, page });
}

export async function domainUpdateSettings(
  db: Queryable,
  teamId: string,
  id: string,
  s: Partial<
    Pick<DomainRow, 'open_tracking' | 'click_tracking' | 'tls' | 'sending' | 'receiving' | 'tracking_subdomain'>
  >,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE domains SET open_tracking = COALESCE($3, open_tracking), click_tracking = COALESCE($4, click_tracking),
       tls = COALESCE($5, tls), sending = COALESCE($6, sending), receiving = COALESCE($7, receiving),
       tracking_subdomain = CASE WHEN $8::boolean THEN $9 ELSE tracking_subdomain END, updated_at = now()
     WHERE team_id = $1 AND id = $2`,
    [
      teamId,
      id,
      s.open_tracking ?? null,
      s.click_tracking ?? null,
      s.tls ?? null,
      s.sending ?? null,
      s.receiving ?? null,
      'tracking_subdomain' in s,
      s.tracking_subdomain ?? null,
    ],
  );
  return Boolean(rowCount);
}

export async function domainDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM domains WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

export async function domainSaveVerification(
  db: Queryable,
  id: string,
  v: {
    status: string;
    recordStatus: Record<string, RecordCheck>;
    verifyStartedAt: Date | null;
    verifiedAt: Date | null;
    nextCheckAt: Date | null;
  },
): Promise<void> {
  await db.query(
    `UPDATE domains SET status = $2, record_status = $3, verify_started_at = $4, verified_at = $5, next_check_at = $6,
       last_checked_at = now(), updated_at = now() WHERE id = $1`,
    [id, v.status, JSON.stringify(v.recordStatus), v.verifyStartedAt, v.verifiedAt, v.nextCheckAt],
  );
}

/**
 * Claims up to `limit` domains whose background re-check is due, across teams, pushing their
 * next_check_at forward so that other workers skip them (SKIP LOCKED within the claim).
 */
export async function domainsClaimDueChecks(
  db: Queryable,
  limit: number,
  leaseSeconds: number,
): Promise<{ id: string; team_id: string }[]> {
  const { rows } = await db.query(
    `UPDATE domains SET next_check_at = now() + make_interval(secs => $2)
     WHERE id IN (SELECT id FROM domains WHERE next_check_at <= now() ORDER BY next_check_at LIMIT $1 FOR UPDATE SKIP LOCKED)
     RETURNING id, team_id`,
    [limit, leaseSeconds],
  );
  return rows;
}

/** The team that owns a domain name (names are unique in the installation), for system mail. */
export async function domainTeamByName(db: Queryable, name: string): Promise<string | undefined> {
  const { rows } = await db.query<{ team_id: string }>('SELECT team_id FROM domains WHERE lower(name) = lower($1)', [
    name,
  ]);
  return rows[0]?.team_id;
}

/** The domain named so, in whichever team holds it, locked for a claim's transfer. */
export async function domainLockByName(db: Queryable, name: string): Promise<DomainRow | undefined> {
  const { rows } = await db.query<DomainRow>(
    `SELECT ${COLUMNS} FROM domains WHERE lower(name) = lower($1) FOR UPDATE`,
    [name],
  );
  return rows[0];
}
