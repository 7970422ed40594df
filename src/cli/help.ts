// The CLI's help texts: one per command, printed by `mailroom <command> --help` (which touches
// nothing: no configuration, no database), and the overview for `mailroom --help`. Commands are
// written `npx mailroom ...`: `npm ci` in the checkout puts no `mailroom` on the PATH.

export const COMMAND_HELP: Record<string, string> = {
  start: `Usage: npx mailroom start [--roles api,smtp,mx,worker] [--regions us-east-1,...] [--no-migrate]

Applies pending database migrations (one process at a time when several start together), then
runs the service until SIGTERM or SIGINT, then stops gracefully and exits 0: new SMTP sessions
get 421 4.3.2, messages being received are accepted, HTTP requests in flight are answered, no
new jobs are claimed, and running jobs finish or are given back to the queue, all within
MAILROOM_SHUTDOWN_TIMEOUT_MS. Refuses to start on a database migrated by a newer Mailroom.

  --roles LIST     what this process runs (default: all; MAILROOM_ROLES)
  --regions LIST   the regions whose deliveries this process's worker takes (MAILROOM_REGIONS)
  --no-migrate     apply no migration: refuse to start, naming them, if any is pending

Without MAILROOM_DATABASE_URL it starts an embedded PostgreSQL under MAILROOM_DATA_DIR (./data).
Every setting is an environment variable: see \`npx mailroom config\`.
`,
  migrate: `Usage: npx mailroom migrate

Applies the pending database migrations and exits. While \`npx mailroom start\` runs on the
embedded PostgreSQL of the same MAILROOM_DATA_DIR, it uses that server.
`,
  config: `Usage: npx mailroom config

Prints the configuration that this shell's environment gives (every MAILROOM_* setting, defaults
included, secrets masked): what a \`npx mailroom start\` from here would use. A server already
running may have been started with other settings. An invalid setting is named; exit 2.
`,
  'api-keys': `Usage: npx mailroom api-keys create [--name NAME] [--permission full_access|sending_access] [--domain-id ID] [--team ID]
       npx mailroom api-keys list [--team ID]
       npx mailroom api-keys delete ID [--team ID]

Creates (the token is printed once), lists (id, name, permission, domain, token prefix, created,
last used) or deletes the API keys of the default team, or of --team ID (see
\`npx mailroom teams list\`). --domain-id limits a sending_access key to one domain of the team.
While \`npx mailroom start\` runs on the embedded PostgreSQL of the same MAILROOM_DATA_DIR, it
uses that server.
`,
  teams: `Usage: npx mailroom teams create NAME
       npx mailroom teams list

\`create\` adds a team and prints a full-access API key for it (shown once); \`list\` shows every
team's id. While \`npx mailroom start\` runs on the embedded PostgreSQL of the same
MAILROOM_DATA_DIR, it uses that server.
`,
  'oauth-clients': `Usage: npx mailroom oauth-clients create --name NAME --redirect-uri URL [--redirect-uri URL ...] [--logo-uri URL] [--public]
       npx mailroom oauth-clients list
       npx mailroom oauth-clients delete ID

Registers (the client_id and, unless --public, the client_secret are printed; the secret only
once), lists or deletes the OAuth clients: third-party integrations that may ask a team's owner or
admin for a full_access or sending_access grant (GET /oauth/authorize, POST /oauth/token; see the
README). A redirect URI is matched exactly; it is https, or http on localhost, 127.0.0.1 or [::1].
--public is for apps that cannot keep a secret (PKCE alone binds their codes). Deleting a client
revokes every grant and token it holds. While \`npx mailroom start\` runs on the embedded
PostgreSQL of the same MAILROOM_DATA_DIR, it uses that server.
`,
  doctor: `Usage: npx mailroom doctor

Checks what a \`npx mailroom start\` with this shell's environment needs: the configuration, the
database (and pending migrations), the listen ports, the DNS resolver, the TLS certificate and a
public MAILROOM_MX_HOST; and asks /ready of a Mailroom at the configured HTTP address. A server
already running may have been started with other settings. Exits 1 when a check fails (a "warn"
does not fail).
`,
  audit: `Usage: npx mailroom audit verify [--team ID]

Walks each team's audit log (or only --team's) from its first entry and checks the hash chain:
every entry present in order, each one hashed onto the one before, none changed, and the newest
matching the team's chain head. Prints one line per team; exits 0 when every chain is intact, 1
naming the first bad or missing entry of each broken chain. While \`npx mailroom start\` runs on the
embedded PostgreSQL of the same MAILROOM_DATA_DIR, it uses that server.
`,
};

export const USAGE = `Usage: npx mailroom <command> [--help]

  start [--roles api,smtp,mx,worker] [--regions us-east-1,...]   run the service (all roles by default)
  migrate                                    apply database migrations and exit
  config                                     print the configuration this shell's environment gives (secrets masked)
  api-keys create [--name NAME] [--permission full_access|sending_access] [--domain-id ID] [--team ID]
  api-keys list [--team ID]
  api-keys delete ID [--team ID]
  teams create NAME                          add a team and print a full-access key for it
  teams list
  oauth-clients create --name NAME --redirect-uri URL [--logo-uri URL] [--public]
  oauth-clients list | delete ID             third-party integrations that may ask for a team's grant
  doctor                                     check ports, database, DNS resolver and TLS
  audit verify [--team ID]                   check that no audit log entry was changed or removed

\`npx mailroom <command> --help\` explains one command. (\`npm ci\` puts no \`mailroom\` on the PATH;
\`npx\` finds it in the checkout.) Exit status: 0 done, 1 failed, 2 usage error or invalid setting.
`;
