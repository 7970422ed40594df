// `mailroom start` as a real child process (from source, tsx) with the given environment: started
// and waited for ("mailroom started" in its log), its output kept (bounded) for failure messages,
// stopped with SIGTERM (then SIGKILL after a bound). For tests where a crash of the process itself
// is what is looked for: an unhandled 'error' event or rejection ends a process, not a test.
import { spawn, type ChildProcess } from 'node:child_process';
import { ROOT, mailroomEntry } from './cli.js';
import { sleep } from '../../src/lib/time.js';

export interface MailroomProc {
  child: ChildProcess;
  /** the HTTP API's URL, when the process runs the api role */
  url?: string;
  output(): string;
  alive(): boolean;
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

export async function startMailroomProc(env: Record<string, string>, startTimeoutMs = 60_000): Promise<MailroomProc> {
  const child = spawn(process.execPath, [...mailroomEntry(), 'start'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const keep = (d: Buffer) => {
    out += d;
    if (out.length > 400_000) out = out.slice(-200_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const proc: MailroomProc = {
    child,
    output: () => out,
    alive: () => child.exitCode === null && child.signalCode === null,
    exited,
    async stop() {
      if (!proc.alive()) return;
      child.kill('SIGTERM');
      const done = await Promise.race([exited.then(() => true), sleep(30_000).then(() => false)]);
      if (!done) {
        child.kill('SIGKILL');
        await exited;
      }
    },
  };
  const end = Date.now() + startTimeoutMs;
  while (!/"mailroom started"/.test(out) && proc.alive() && Date.now() < end) await sleep(100);
  if (!/"mailroom started"/.test(out)) {
    await proc.stop();
    throw new Error(`mailroom did not start:\n${out.slice(-5000)}`);
  }
  proc.url = /"http":"([^"]+)"/.exec(out)?.[1];
  return proc;
}
