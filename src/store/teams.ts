// Teams (tenants). The default team is created on first start.
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';

/** The hidden team that owns system mail (migration 0011): no user, key or session belongs to it. */
export const SYSTEM_TEAM_ID = '00000000-0000-4000-8000-00000000f00d';

export interface Team {
  id: string;
  name: string;
  is_default: boolean;
}

export async function teamEnsureDefault(db: Queryable): Promise<Team> {
  const { rows } = await db.query<Team>(
    `INSERT INTO teams (id, name, is_default) VALUES ($1, 'Default', true)
     ON CONFLICT (is_default) WHERE is_default DO UPDATE SET is_default = true
     RETURNING id, name, is_default`,
    [uuid()],
  );
  return rows[0];
}

export async function teamCreate(db: Queryable, name: string): Promise<Team> {
  const { rows } = await db.query<Team>('INSERT INTO teams (id, name) VALUES ($1, $2) RETURNING id, name, is_default', [
    uuid(),
    name,
  ]);
  return rows[0];
}

export async function teamList(db: Queryable): Promise<(Team & { created_at: string })[]> {
  const { rows } = await db.query(
    'SELECT id, name, is_default, created_at::text AS created_at FROM teams WHERE NOT is_system ORDER BY created_at',
  );
  return rows;
}

export async function teamFindById(db: Queryable, id: string): Promise<Team | undefined> {
  const { rows } = await db.query<Team>('SELECT id, name, is_default FROM teams WHERE id = $1 AND NOT is_system', [id]);
  return rows[0];
}
