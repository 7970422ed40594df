// `mailroom config`: the effective configuration, secrets masked.
import { parseArgs } from 'node:util';
import { describeConfig, loadConfig } from '../config/load.js';

export function cmdConfig(argv: string[]): number {
  parseArgs({ args: argv, options: {} }); // no arguments: anything else is a usage error
  const rows = describeConfig(loadConfig());
  const w = Math.max(...rows.map((r) => r.env.length));
  for (const r of rows) process.stdout.write(`${r.env.padEnd(w)}  ${r.value}\n`);
  return 0;
}
