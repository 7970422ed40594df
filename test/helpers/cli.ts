// Runs the `mailroom` command from source (tsx) in a child process with only the given
// environment (plus PATH and HOME), bounded by a timeout; returns its status and output.
// runMailroomAsync leaves this process's event loop running (a server in the test answers meanwhile).
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export const runMailroom = (args: string[], env: Record<string, string>) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });

export function runMailroomAsync(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
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
