// Runs the `mailroom` command from source (tsx) in a child process with only the given
// environment (plus PATH and HOME), bounded by a timeout; returns its status and output.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export const runMailroom = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env }, encoding: 'utf8', timeout: 60_000 });
