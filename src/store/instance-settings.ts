// instance_settings: facts every process of one installation must agree on (0045).
import type { Sealer } from '../lib/crypto.js';
import type { Queryable } from './db.js';

/** The setting's value: `value` if none was stored yet (the first writer wins, across processes). */
export async function instanceSettingEnsure(db: Queryable, name: string, value: string): Promise<string> {
  const { rows } = await db.query<{ value: string }>(
    `WITH ins AS (INSERT INTO instance_settings (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value)
     SELECT value FROM ins UNION ALL SELECT value FROM instance_settings WHERE name = $1 LIMIT 1`,
    [name, value],
  );
  if (rows.length) return rows[0].value;
  // Another process inserted it after this statement's snapshot: read it in a new one.
  const again = await db.query<{ value: string }>('SELECT value FROM instance_settings WHERE name = $1', [name]);
  return again.rows[0].value;
}

const KEY_CHECK = 'secret_key_check';
const KEY_CHECK_TEXT = 'mailroom secret key check';

/**
 * Whether `sealer` (this process's MAILROOM_SECRET_KEY) is the key the installation's secrets are
 * sealed with: the first process to start records a sealed known text, every later one must open it.
 */
export async function secretKeyMatches(db: Queryable, sealer: Sealer): Promise<boolean> {
  const stored = await instanceSettingEnsure(db, KEY_CHECK, sealer.seal(KEY_CHECK_TEXT));
  try {
    return sealer.open(stored) === KEY_CHECK_TEXT;
  } catch {
    return false;
  }
}
