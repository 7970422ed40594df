// The `mailroom` command: dispatches to one file per command. `--help` anywhere after a command
// prints that command's help before anything is loaded or opened; every failure is one sentence
// on stderr and a non-zero exit, never a stack trace.
import { ConfigError } from '../config/load.js';
import { COMMAND_HELP, USAGE } from './help.js';
import { explainError, UsageError } from './errors.js';

// Loaded on use, so that `--help` and a usage error answer at once (the server's modules take
// seconds to load on a busy machine).
const COMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<number> | number>> = {
  start: async () => (await import('./start.js')).cmdStart,
  migrate: async () => (await import('./migrate.js')).cmdMigrate,
  config: async () => (await import('./config.js')).cmdConfig,
  'api-keys': async () => (await import('./api-keys.js')).cmdApiKeys,
  teams: async () => (await import('./teams.js')).cmdTeams,
  doctor: async () => (await import('./doctor.js')).cmdDoctor,
};

const wantsHelp = (argv: string[]) => argv.some((a) => a === '--help' || a === '-h');

export async function runCli(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined || cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const topic = cmd === 'help' ? rest[0] : undefined;
    if (topic && COMMAND_HELP[topic]) {
      process.stdout.write(COMMAND_HELP[topic]);
      return 0;
    }
    (cmd ? process.stdout : process.stderr).write(USAGE);
    return cmd ? 0 : 1;
  }
  const load = COMMANDS[cmd];
  if (!load) {
    process.stderr.write(`Unknown command "${cmd}".\n\n${USAGE}`);
    return 1;
  }
  if (wantsHelp(rest)) {
    process.stdout.write(COMMAND_HELP[cmd]);
    return 0;
  }
  try {
    return await (await load())(rest);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    const code = (err as { code?: string } | undefined)?.code;
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'))) {
      process.stderr.write(`mailroom ${cmd}: ${(err as Error).message}\n\n${COMMAND_HELP[cmd]}`);
      return 2;
    }
    process.stderr.write(`mailroom ${cmd}: ${explainError(err)}\n`);
    return 1;
  }
}
