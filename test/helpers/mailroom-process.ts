// A `mailroom start` in a child process (the build when fresh, else the sources via tsx: cli.ts) with only the given environment
// (plus PATH and HOME), its JSON log lines collected as they come, for tests of several processes
// on one database: wait for a line, signal it, await its exit. stop() kills what is still running.
import { spawn, type ChildProcess } from 'node:child_process';
import { mailroomEntry, ROOT } from './cli.js';
import { until } from './until.js';

export interface LogLine {
  msg: string;
  [k: string]: unknown;
}

export interface MailroomProcess {
  child: ChildProcess;
  lines: LogLine[];
  /** stdout and stderr as received, the first 50,000 characters (for a failure's message) */
  output(): string;
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
    if (out.length < 50_000) out += s;
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
  return {
    child,
    lines,
    output: () => out,
    exited,
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
        throw new Error(`${err.message}\n${out}`);
      }),
    kill: () => {
      if (!done) child.kill('SIGKILL');
    },
  };
}
