// "The database cannot be reached right now" (server down, restarting, failing over, out of
// connections), told apart from every other error: requests answer it with 503 / SMTP 451 4.3.0,
// and writes that must not be lost wait for the database instead of failing.
import type { Logger } from '../lib/log.js';
import { sleep } from '../lib/time.js';

/** Errors of the pg driver and pool that mean the database cannot be reached right now. */
const DB_DOWN_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EPIPE',
  '57P01', // admin_shutdown: the server is stopping (restart, failover)
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

export function isDatabaseUnavailable(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== 'object') return false;
  if (typeof e.code === 'string' && (DB_DOWN_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  const m = typeof e.message === 'string' ? e.message : '';
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Client has encountered a connection error|server conn crashed|no more connections allowed|pgbouncer cannot connect to server/i.test(
    m,
  );
}

/**
 * Runs `fn`, and again every `everyMs` while it fails because the database is unavailable, for at
 * most `maxMs`; any other error (or the last one) is thrown. For writes recording what already
 * happened outside the database (a message handed to the recipient's server): failing them makes
 * the work run again, which repeats it.
 */
export async function retryWhileUnavailable<T>(
  fn: () => Promise<T>,
  opts: { log: Logger; what: string; maxMs?: number; everyMs?: number },
): Promise<T> {
  const end = Date.now() + (opts.maxMs ?? 120_000);
  let warned = false;
  for (;;) {
    try {
      const out = await fn();
      if (warned) opts.log.info(`${opts.what}: the database answers again; written`);
      return out;
    } catch (err) {
      if (!isDatabaseUnavailable(err) || Date.now() >= end) throw err;
      if (!warned) opts.log.warn(`${opts.what}: the database is unavailable; retrying until it is back`, { err });
      warned = true;
      await sleep(opts.everyMs ?? 1_000);
    }
  }
}
