// `mailroom api-keys create|list|delete` for the default team or --team ID. Malformed arguments
// are usage errors (exit 2) found before the database is opened; an ID that names nothing is a
// CommandFailure (exit 1).
import { parseArgs } from 'node:util';
import { CLI_ACTOR } from '../audit/record.js';
import { ApiKeys } from '../auth/api-keys.js';
import { AppError } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import type { ApiKeyDetail } from '../store/api-keys.js';
import { teamFindById } from '../store/teams.js';
import { withDatabase } from './db.js';
import { CommandFailure, UsageError } from './errors.js';

const SUBCOMMANDS = ['create', 'list', 'delete'] as const;

export async function cmdApiKeys(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      permission: { type: 'string' },
      'domain-id': { type: 'string' },
      team: { type: 'string' },
    },
  });
  const [sub, id, ...extra] = positionals;
  if (!SUBCOMMANDS.includes(sub as never))
    throw new UsageError(sub ? `unknown subcommand "${sub}".` : 'say create, list or delete.');
  const stray = sub === 'delete' ? extra[0] : id;
  if (stray !== undefined) throw new UsageError(`unexpected argument "${stray}".`);
  const permission = values.permission ?? 'full_access';
  if (permission !== 'full_access' && permission !== 'sending_access')
    throw new UsageError('--permission must be full_access or sending_access.');
  if (values.name !== undefined && !values.name.trim()) throw new UsageError('--name must not be empty.');
  if (values.team !== undefined && !isUuid(values.team))
    throw new UsageError(`--team must be a team's id (a UUID, see \`npx mailroom teams list\`), got "${values.team}".`);
  const domainId = values['domain-id'];
  if (domainId !== undefined && !isUuid(domainId))
    throw new UsageError(`--domain-id must be a domain's id (a UUID), got "${domainId}".`);
  if (domainId !== undefined && permission !== 'sending_access')
    throw new UsageError('--domain-id restricts a sending key: add --permission sending_access.');
  if (sub === 'delete' && !id)
    throw new UsageError('delete needs the ID of the key (see `npx mailroom api-keys list`).');
  if (sub === 'delete' && !isUuid(id))
    throw new UsageError(`the ID of a key is a UUID (see \`npx mailroom api-keys list\`), got "${id}".`);

  return withDatabase(async (db, ctx) => {
    const teamId = values.team ?? ctx.defaultTeamId;
    if (!(await teamFindById(db.pool, teamId)))
      throw new CommandFailure(`no team ${teamId} (see \`npx mailroom teams list\`).`);
    const team = values.team ? `team ${teamId}` : 'the default team';
    const keys = new ApiKeys(db.pool);
    switch (sub) {
      case 'create': {
        // The API's own checks: a domain must be one of this team's.
        const key = await keys
          .createChecked(teamId, { name: values.name ?? 'CLI', permission, domain_id: domainId ?? null }, CLI_ACTOR)
          .catch((err) => {
            if (err instanceof AppError && err.code === 'not_found')
              throw new CommandFailure(`${team} has no domain ${domainId} (GET /domains lists them).`);
            throw err;
          });
        process.stdout.write(`id:    ${key.id}\ntoken: ${key.token}\n(the token is shown only once)\n`);
        return 0;
      }
      case 'list': {
        const list = await keys.listDetailed(teamId);
        if (!list.length) process.stdout.write('No API keys.\n');
        else process.stdout.write(table(list));
        return 0;
      }
      default: {
        if (!(await keys.delete(teamId, id, CLI_ACTOR)))
          throw new CommandFailure(`${team} has no API key ${id} (see \`npx mailroom api-keys list\`).`);
        process.stdout.write(`Deleted ${id}\n`);
        return 0;
      }
    }
  });
}

/** PostgreSQL's timestamptz text (session time zone) as UTC to the second. */
const utc = (text: string | null): string => {
  if (!text) return 'never';
  const d = new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  return Number.isNaN(d.getTime()) ? text : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

/** One key a line, columns two spaces apart (a name with spaces stays one column). */
function table(keys: ApiKeyDetail[]): string {
  const rows = [
    ['ID', 'NAME', 'PERMISSION', 'DOMAIN', 'TOKEN', 'CREATED', 'LAST USED'],
    ...keys.map((k) => [
      k.id,
      k.name,
      k.permission,
      k.domain_name ?? (k.domain_id ? k.domain_id : 'all domains'),
      `${k.token_hint}…`,
      utc(k.created_at),
      utc(k.last_used_at),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]))).join('  ')).join('\n') + '\n';
}
