// The `mailroom` command: dispatches to one file per command. `--help` anywhere after a command
// prints that command's help before anything is loaded or opened; every failure is one sentence
// on stderr and a non-zero exit, never a stack trace: 2 for a usage error (with the usage) or an
// invalid setting, 1 when the work fails.
import { ConfigError } from '../config/load.js';
import { COMMAND_HELP, USAGE } from './help.js';
import { CommandFailure, explainError, UsageError } from './errors.js';

// Loaded on use, so that `--help` and a usage error answer at once (the server's modules take
// seconds to load on a busy machine).
const COMMANDS: Record<string, () => Promise<(argv: string[]) => Promise<number> | number>> = {
  start: async () => (await import('./start.js')).cmdStart,
  migrate: async () => (await import('./migrate.js')).cmdMigrate,
  config: async () => (await import('./config.js')).cmdConfig,
  'api-keys': async () => (await import('./api-keys.js')).cmdApiKeys,
  teams: async () => (await import('./teams.js')).cmdTeams,
  'oauth-clients': async () => (await import('./oauth-clients.js')).cmdOAuthClients,
  doctor: async () => (await import('./doctor.js')).cmdDoctor,
  audit: async () => (await import('./audit.js')).cmdAudit,
};

const wantsHelp = (argv: string[]) => argv.some((a) => a === '--help' || a === '-h');

/** Node's parseArgs messages, to their first sentence ("Unknown option '--x'. To specify a positional ..."). */
const firstSentence = (message: string) => `${message.split(/\.\s/)[0].replace(/\.$/, '')}.`;

const usageError = (message: string, usage: string) => {
  process.stderr.write(`${message}\n\n${usage}`);
  return 2;
};

export async function runCli(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  if (cmd === undefined) return usageError('mailroom: say which command.', USAGE);
  if (cmd === '--help' || cmd === '-h' || cmd === 'help') {
    const topic = cmd === 'help' ? rest[0] : undefined;
    if (topic === undefined) {
      process.stdout.write(USAGE);
      return 0;
    }
    if (!COMMAND_HELP[topic]) return usageError(`mailroom: unknown command "${topic}".`, USAGE);
    process.stdout.write(COMMAND_HELP[topic]);
    return 0;
  }
  const load = COMMANDS[cmd];
  if (!load) return usageError(`mailroom: unknown command "${cmd}".`, USAGE);
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
    if (err instanceof UsageError) return usageError(`mailroom ${cmd}: ${err.message}`, COMMAND_HELP[cmd]);
    const code = (err as { code?: string } | undefined)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'))
      return usageError(`mailroom ${cmd}: ${firstSentence((err as Error).message)}`, COMMAND_HELP[cmd]);
    if (err instanceof CommandFailure) {
      process.stderr.write(`mailroom ${cmd}: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`mailroom ${cmd}: ${explainError(err)}\n`);
    return 1;
  }
}
