// `mailroom start`: migrates the database (or with --no-migrate only checks that it needs none),
// runs the roles of this process until SIGTERM/SIGINT, then shuts down gracefully (stop
// accepting, finish in-flight work or give it back, flush, close the database) and exits 0.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config/load.js';
import { schema } from '../config/schema.js';

export async function cmdStart(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { roles: { type: 'string' }, regions: { type: 'string' }, 'no-migrate': { type: 'boolean' } },
  });
  const env = { ...process.env };
  if (values.roles) env[schema.roles.env] = values.roles;
  if (values.regions) env[schema.regions.env] = values.regions;
  const config = loadConfig(env);
  // The signal handlers go in before start-up: a SIGTERM that arrives while the roles are still
  // starting (the HTTP server may already be listening) waits for the start to finish, then stops
  // the process gracefully like any other, instead of killing it with the default action. A
  // second signal during a start that hangs (a database that never answers) exits at once.
  // They go in before the service's code is loaded, too: as PID 1 of a container (no --init) a
  // signal without a handler is ignored, not fatal, so a SIGTERM during the seconds of loading
  // was lost and the process ran on until the runtime's SIGKILL.
  let signalled: string | undefined;
  let onSignal = (signal: string) => {
    if (signalled) process.exit(1);
    signalled = signal;
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  // The service's code is loaded once the settings are known to be good (about 3 s of module
  // loading on a small machine): an invalid setting is named at once.
  const { startApp } = await import('../app.js');
  // Stopped while loading: nothing has started, nothing to drain.
  if (signalled) return 0;
  const app = await startApp(config, { migrate: !values['no-migrate'] });
  app.log.info('mailroom started', {
    roles: config.roles,
    regions: config.regions,
    http: app.httpUrl,
    database: app.db.embedded ? 'embedded' : 'external',
  });
  await new Promise<void>((resolve) => {
    let stopping = false;
    onSignal = (signal: string) => {
      if (stopping) return;
      stopping = true;
      app.log.info('shutting down', { signal });
      app.close().then(resolve, (err) => {
        app.log.error('shutdown failed', { err });
        resolve();
      });
    };
    if (signalled) onSignal(signalled);
  });
  // Everything is closed; a socket or timer some library left open must not keep a stopped
  // process alive (an orchestrator would wait for it, then kill it): exit a moment later regardless.
  setTimeout(() => {
    app.log.warn('handles still open after shutdown; exiting');
    process.exit(0);
  }, EXIT_GRACE_MS).unref();
  return 0;
}

const EXIT_GRACE_MS = 2_000;
