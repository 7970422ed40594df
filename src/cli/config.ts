// `mailroom config`: the configuration this shell's environment gives, secrets masked. It cannot
// see a running server's settings, and its header says so.
import { parseArgs } from 'node:util';
import { describeConfig, loadConfig } from '../config/load.js';

export function cmdConfig(argv: string[]): number {
  parseArgs({ args: argv, options: {} }); // no arguments: anything else is a usage error
  const rows = describeConfig(loadConfig());
  const w = Math.max(...rows.map((r) => r.env.length));
  process.stdout.write(
    "# Configuration as this shell's environment gives it: what `npx mailroom start` from here would use (a running server may have been started with other settings).\n",
  );
  for (const r of rows) process.stdout.write(`${r.env.padEnd(w)}  ${r.value}\n`);
  return 0;
}
