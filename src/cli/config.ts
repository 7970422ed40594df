// `mailroom config`: the effective configuration, secrets masked.
import { describeConfig, loadConfig } from '../config/load.js';

export function cmdConfig(): number {
  const rows = describeConfig(loadConfig());
  const w = Math.max(...rows.map((r) => r.env.length));
  for (const r of rows) process.stdout.write(`${r.env.padEnd(w)}  ${r.value}\n`);
  return 0;
}
