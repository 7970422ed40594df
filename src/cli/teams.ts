// `mailroom teams create NAME | list`: a new team comes with a full-access key, printed once.
import { ApiKeys } from '../auth/api-keys.js';
import { teamCreate, teamList } from '../store/teams.js';
import { withDatabase } from './db.js';

export async function cmdTeams(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  return withDatabase(async (db) => {
    if (sub === 'create' && rest.join(' ').trim()) {
      const team = await teamCreate(db.pool, rest.join(' ').trim());
      const key = await new ApiKeys(db.pool).create(team.id, { name: 'Owner' });
      process.stdout.write(`team:  ${team.id} (${team.name})\ntoken: ${key.token}\n(the token is shown only once)\n`);
      return 0;
    }
    if (sub === 'list') {
      for (const t of await teamList(db.pool)) process.stdout.write(`${t.id}  ${t.name}${t.is_default ? ' (default)' : ''}  created ${t.created_at}\n`);
      return 0;
    }
    process.stderr.write('Usage: mailroom teams create NAME | mailroom teams list\n');
    return 1;
  });
}
