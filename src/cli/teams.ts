// `mailroom teams create NAME | list`: a new team comes with a full-access key, printed once.
import { CLI_ACTOR } from '../audit/record.js';
import { parseArgs } from 'node:util';
import { ApiKeys } from '../auth/api-keys.js';
import { teamCreate, teamList } from '../store/teams.js';
import { withDatabase } from './db.js';
import { UsageError } from './errors.js';

export async function cmdTeams(argv: string[]): Promise<number> {
  // No options: parseArgs names an unknown one (`teams create --bogus` is not a team called "--bogus").
  const [sub, ...rest] = parseArgs({ args: argv, allowPositionals: true, options: {} }).positionals;
  const name = rest.join(' ').trim();
  if (sub === 'create' && !name) throw new UsageError('the new team needs a NAME.');
  if (sub === 'list' && rest.length) throw new UsageError(`unexpected argument "${rest[0]}".`);
  if (sub !== 'create' && sub !== 'list')
    throw new UsageError(sub ? `unknown subcommand "${sub}".` : 'say create NAME or list.');
  return withDatabase(async (db) => {
    if (sub === 'create') {
      const team = await teamCreate(db.pool, name);
      const key = await new ApiKeys(db.pool).create(team.id, { name: 'Owner' }, CLI_ACTOR);
      process.stdout.write(`team:  ${team.id} (${team.name})\ntoken: ${key.token}\n(the token is shown only once)\n`);
      return 0;
    }
    for (const t of await teamList(db.pool))
      process.stdout.write(`${t.id}  ${t.name}${t.is_default ? ' (default)' : ''}  created ${t.created_at}\n`);
    return 0;
  });
}
