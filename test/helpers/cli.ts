// Runs the `mailroom` command from source (tsx) in a child process with only the given
// environment (plus PATH and HOME), bounded by a timeout; returns its status and output.
// runMailroomAsync leaves this process's event loop running (a server in the test answers meanwhile).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { ROOT } from './root.js';

/**
 * How to run `mailroom` for a long-running process: the build (`node dist/main.js`, what `npm ci`
 * makes) when it is newer than every source file, else the sources through tsx. A start from the
 * build costs half the CPU (1.9 s against 4.1 s to load the app here), which tests that start
 * many processes on a 2-core machine feel; a stale build is never used.
 */
export function mailroomEntry(): string[] {
  const built = path.join(ROOT, 'dist/main.js');
  let builtAt: number;
  try {
    builtAt = fs.statSync(built).mtimeMs;
  } catch {
    return ['--import', 'tsx', 'src/main.ts'];
  }
  const newer = (dir: string): boolean =>
    fs.readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = path.join(dir, e.name);
      return e.isDirectory() ? newer(p) : fs.statSync(p).mtimeMs > builtAt;
    });
  return newer(path.join(ROOT, 'src')) ? ['--import', 'tsx', 'src/main.ts'] : [built];
}

export const runMailroom = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, [...mailroomEntry(), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

export function runMailroomAsync(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...mailroomEntry(), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    timeout: 60_000,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}
