// A `mailroom start` in a child process (the build when fresh, else the sources via tsx: cli.ts) with only the given environment
// (plus PATH and HOME), its JSON log lines collected as they come, for tests of several processes
// on one database: wait for a line, signal it, await its exit; kill() ends it at once, stop() with
// SIGTERM (SIGKILL after a bound). startMailroomProc: one started and waited for, for tests where a
// crash of the process itself is what is looked for (an unhandled error ends a process, not a test).
import { spawn, type ChildProcess } from 'node:child_process';
import { mailroomEntry } from './cli.js';
import { ROOT } from './root.js';
import { until } from './until.js';

export interface LogLine {
  msg: string;
  [k: string]: unknown;
}

export interface MailroomProcess {
  child: ChildProcess;
  lines: LogLine[];
  /** stdout and stderr as received, the last 200,000 characters or more (for a failure's message) */
  output(): string;
  alive(): boolean;
  /** SIGTERM, and SIGKILL if it has not exited within 30 s */
  stop(): Promise<void>;
  /** the first log line with this message (and, if given, more), waited for up to timeoutMs */
  waitFor(msg: string, timeoutMs?: number, match?: (l: LogLine) => boolean): Promise<LogLine>;
  /** exit code (null if killed by a signal) */
  exited: Promise<number | null>;
  kill(): void;
}

// Children still running when this test process ends are killed with it: a test file the runner
// stops at its timeout (SIGTERM) must not leave servers running through the rest of the suite.
const live = new Set<ChildProcess>();
let reaping = false;
function reapOnExit() {
  if (reaping) return;
  reaping = true;
  const reap = () => {
    for (const c of live) c.kill('SIGKILL');
  };
  process.once('exit', reap);
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      reap();
      process.exit(128 + (signal === 'SIGTERM' ? 15 : 2));
    });
}

export function startMailroom(args: string[], env: Record<string, string>): MailroomProcess {
  reapOnExit();
  const child = spawn(process.execPath, [...mailroomEntry(), 'start', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME!, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  const lines: LogLine[] = [];
  let out = '';
  let partial = '';
  const keep = (s: string) => {
    out += s;
    if (out.length > 400_000) out = out.slice(-200_000);
  };
  child.stdout!.on('data', (d: Buffer) => {
    keep(d.toString());
    const parts = (partial + d.toString()).split('\n');
    partial = parts.pop()!;
    for (const p of parts) {
      try {
        lines.push(JSON.parse(p) as LogLine);
      } catch {
        /* not a log line */
      }
    }
  });
  child.stderr!.on('data', (d: Buffer) => keep(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const proc: MailroomProcess = {
    child,
    lines,
    output: () => out,
    alive: () => !done,
    exited,
    async stop() {
      if (done) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
    waitFor: (msg, timeoutMs = 60_000, match = () => true) =>
      until(
        `log line "${msg}"`,
        async () => {
          const l = lines.find((x) => x.msg === msg && match(x));
          if (!l && done) throw new Error(`the process exited before logging "${msg}":\n${out}`);
          return l;
        },
        timeoutMs,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${out.slice(-20_000)}`);
      }),
    kill: () => {
      if (!done) child.kill('SIGKILL');
    },
  };
  return proc;
}

/** A `mailroom start` waited for until "mailroom started"; `url` is its HTTP API's when it runs the api role. */
export async function startMailroomProc(
  env: Record<string, string>,
  startTimeoutMs = 60_000,
): Promise<MailroomProcess & { url?: string }> {
  const p = startMailroom([], env);
  try {
    const started = await p.waitFor('mailroom started', startTimeoutMs);
    return Object.assign(p, { url: typeof started.http === 'string' ? started.http : undefined });
  } catch (err) {
    await p.stop();
    throw err;
  }
}

export type MailroomProc = Awaited<ReturnType<typeof startMailroomProc>>;
