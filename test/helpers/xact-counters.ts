// What one call read, from the session's statistics counters (pg_stat_xact_*): `counters` is a
// query of one row of integer columns, run before and after the call in the call's transaction;
// the result is each column's difference. The counters not yet flushed can include the session's
// earlier transactions, hence the difference rather than the value.
import type pg from 'pg';

export async function countersDuring<K extends string>(
  c: pg.PoolClient,
  counters: string,
  call: () => Promise<unknown>,
): Promise<Record<K, number>> {
  await c.query('BEGIN');
  const before = (await c.query<Record<K, number>>(counters)).rows[0];
  await call();
  const after = (await c.query<Record<K, number>>(counters)).rows[0];
  await c.query('COMMIT');
  const out = {} as Record<K, number>;
  for (const k of Object.keys(after) as K[]) out[k] = Number(after[k]) - Number(before[k]);
  return out;
}
