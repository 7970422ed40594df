// Settings that are valid but will not work in the world: said at start and by `mailroom doctor`.
import type { Config } from './schema.js';

/** Why MAILROOM_MX_HOST cannot serve as the public name of this service, or undefined. */
export function mxHostProblem(config: Pick<Config, 'mxHost' | 'deliveryMode'>): string | undefined {
  if (config.deliveryMode === 'capture' || /\.[a-z0-9-]+\.?$/i.test(config.mxHost)) return undefined;
  return `MAILROOM_MX_HOST is "${config.mxHost}", a name without a dot (the machine's host name by default): the return-path MX and the SPF record "v=spf1 a:${config.mxHost} ~all" would point at it, and receivers judge that SPF as permerror. Set MAILROOM_MX_HOST to this server's public DNS name (e.g. mail.example.com).`;
}
