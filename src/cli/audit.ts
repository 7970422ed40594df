// `mailroom audit verify [--team ID]`: walks each team's audit chain (audit/verify.ts) and exits 0
// when every chain is intact, 1 naming the first bad or missing entry of each broken one.
import { parseArgs } from 'node:util';
import { isUuid } from '../lib/ids.js';
import { verifyChains } from '../audit/verify.js';
import { withDatabase } from './db.js';
import { UsageError } from './errors.js';

export async function cmdAudit(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { team: { type: 'string' } },
  });
  const [sub, extra] = positionals;
  if (sub !== 'verify') throw new UsageError(sub ? `unknown subcommand "${sub}".` : 'say verify.');
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}".`);
  if (values.team !== undefined && !isUuid(values.team))
    throw new UsageError(`a team ID is a UUID (see \`npx mailroom teams list\`), got "${values.team}".`);
  return withDatabase(async (db) => {
    const reports = await verifyChains(db.pool, values.team);
    let broken = 0;
    for (const r of reports) {
      if (r.problem) {
        broken++;
        process.stdout.write(`team ${r.team_id}: BROKEN: ${r.problem}\n`);
      } else process.stdout.write(`team ${r.team_id}: intact, ${r.entries} entries\n`);
    }
    if (!reports.length) process.stdout.write('no audit entries yet\n');
    if (broken) process.stderr.write(`mailroom audit: ${broken} broken chain(s)\n`);
    return broken ? 1 : 0;
  });
}
