// The CLI's help texts: one per command, printed by `mailroom <command> --help` (which touches
// nothing: no configuration, no database), and the overview for `mailroom --help`.

export const COMMAND_HELP: Record<string, string> = {
  start: `Usage: mailroom start [--roles api,smtp,mx,worker] [--regions us-east-1,...]

Runs the service until SIGTERM or SIGINT, then stops gracefully (stops accepting, finishes
in-flight work, flushes the request log, closes the database).

  --roles LIST     what this process runs (default: all; MAILROOM_ROLES)
  --regions LIST   the regions whose deliveries this process's worker takes (MAILROOM_REGIONS)

Without MAILROOM_DATABASE_URL it starts an embedded PostgreSQL under MAILROOM_DATA_DIR (./data).
Every setting is an environment variable: see \`mailroom config\`.
`,
  migrate: `Usage: mailroom migrate

Applies the pending database migrations and exits. While \`mailroom start\` runs on the embedded
PostgreSQL of the same MAILROOM_DATA_DIR, it uses that server.
`,
  config: `Usage: mailroom config

Prints the effective configuration (every MAILROOM_* setting, defaults included, secrets masked).
An invalid setting is named and the command exits 2.
`,
  'api-keys': `Usage: mailroom api-keys create [--name NAME] [--permission full_access|sending_access] [--domain-id ID] [--team ID]
       mailroom api-keys list [--team ID]
       mailroom api-keys delete ID [--team ID]

Creates (the token is printed once), lists or deletes the API keys of the default team, or of
--team ID (see \`mailroom teams list\`). While \`mailroom start\` runs on the embedded PostgreSQL
of the same MAILROOM_DATA_DIR, it uses that server.
`,
  teams: `Usage: mailroom teams create NAME
       mailroom teams list

\`create\` adds a team and prints a full-access API key for it (shown once); \`list\` shows every
team's id. While \`mailroom start\` runs on the embedded PostgreSQL of the same MAILROOM_DATA_DIR,
it uses that server.
`,
  doctor: `Usage: mailroom doctor

Checks what the service needs: the configuration, the database (and pending migrations), the
listen ports, the DNS resolver, the TLS certificate and a public MAILROOM_MX_HOST. Exits 1 when a
check fails (a "warn" does not fail).
`,
};

export const USAGE = `Usage: mailroom <command> [--help]

  start [--roles api,smtp,mx,worker] [--regions us-east-1,...]   run the service (all roles by default)
  migrate                                    apply database migrations and exit
  config                                     print the effective configuration (secrets masked)
  api-keys create [--name NAME] [--permission full_access|sending_access] [--domain-id ID] [--team ID]
  api-keys list [--team ID]
  api-keys delete ID [--team ID]
  teams create NAME                          add a team and print a full-access key for it
  teams list
  doctor                                     check ports, database, DNS resolver and TLS

\`mailroom <command> --help\` explains one command.
`;
