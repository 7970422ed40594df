// The `mailroom` command: dispatches to one file per command. Every failure is one sentence on
// stderr and a non-zero exit, never a stack trace.
import { ConfigError } from '../config/load.js';
import { explainError, UsageError } from './errors.js';
import { cmdStart } from './start.js';
import { cmdMigrate } from './migrate.js';
import { cmdConfig } from './config.js';
import { cmdApiKeys } from './api-keys.js';
import { cmdTeams } from './teams.js';
import { cmdDoctor } from './doctor.js';

const USAGE = `Usage: mailroom <command>

  start [--roles api,smtp,mx,worker] [--regions us-east-1,...]   run the service (all roles by default)
  migrate                                    apply database migrations and exit
  config                                     print the effective configuration (secrets masked)
  api-keys create --name NAME [--permission full_access|sending_access] [--domain-id ID] [--team ID]
  api-keys list [--team ID]
  api-keys delete ID [--team ID]
  teams create NAME                          add a team and print a full-access key for it
  teams list
  doctor                                     check ports, database, DNS resolver and TLS
`;

export async function runCli(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'start': return await cmdStart(rest);
      case 'migrate': return await cmdMigrate(rest);
      case 'config': return cmdConfig(rest);
      case 'api-keys': return await cmdApiKeys(rest);
      case 'teams': return await cmdTeams(rest);
      case 'doctor': return await cmdDoctor(rest);
      case undefined: case 'help': case '--help': case '-h':
        process.stdout.write(USAGE);
        return cmd ? 0 : 1;
      default:
        process.stderr.write(`Unknown command "${cmd}".\n\n${USAGE}`);
        return 1;
    }
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      return 2;
    }
    const code = (err as { code?: string } | undefined)?.code;
    if (err instanceof UsageError || (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_'))) {
      process.stderr.write(`mailroom ${cmd}: ${(err as Error).message}\n\n${USAGE}`);
      return 2;
    }
    process.stderr.write(`mailroom ${cmd}: ${explainError(err)}\n`);
    return 1;
  }
}
