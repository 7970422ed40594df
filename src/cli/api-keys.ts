// `mailroom api-keys create|list|delete` for the default team or --team ID.
import { parseArgs } from 'node:util';
import { ApiKeys } from '../auth/api-keys.js';
import { isUuid } from '../lib/ids.js';
import { apiKeyList, type Permission } from '../store/api-keys.js';
import { teamFindById } from '../store/teams.js';
import { withDatabase } from './db.js';
import { UsageError } from './errors.js';

export async function cmdApiKeys(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv, allowPositionals: true,
    options: { name: { type: 'string' }, permission: { type: 'string' }, 'domain-id': { type: 'string' }, team: { type: 'string' } },
  });
  const [sub, id] = positionals;
  if (sub !== 'create' && sub !== 'list' && sub !== 'delete') throw new UsageError(sub ? `unknown subcommand "${sub}".` : 'say create, list or delete.');
  const permission = (values.permission ?? 'full_access') as Permission;
  if (permission !== 'full_access' && permission !== 'sending_access') throw new UsageError('--permission must be full_access or sending_access.');
  if (sub === 'delete' && !id) throw new UsageError('delete needs the ID of the key (see `mailroom api-keys list`).');
  return withDatabase(async (db, ctx) => {
    const teamId = values.team ?? ctx.defaultTeamId;
    if (!isUuid(teamId) || !(await teamFindById(db.pool, teamId))) {
      process.stderr.write(`No team ${teamId} (see \`mailroom teams list\`).\n`);
      return 1;
    }
    const keys = new ApiKeys(db.pool);
    switch (sub) {
      case 'create': {
        const key = await keys.create(teamId, { name: values.name ?? 'CLI', permission, domainId: values['domain-id'] ?? null });
        process.stdout.write(`id:    ${key.id}\ntoken: ${key.token}\n(the token is shown only once)\n`);
        return 0;
      }
      case 'list': {
        const page = await apiKeyList(db.pool, teamId, {});
        for (const k of page.data) process.stdout.write(`${k.id}  ${k.name}  created ${k.created_at}  last used ${k.last_used_at ?? 'never'}\n`);
        if (!page.data.length) process.stdout.write('No API keys.\n');
        return 0;
      }
      case 'delete': {
        if (!isUuid(id) || !(await keys.delete(teamId, id))) {
          process.stderr.write(`API key not found: ${id}.\n`);
          return 1;
        }
        process.stdout.write(`Deleted ${id}\n`);
        return 0;
      }
    }
  });
}
