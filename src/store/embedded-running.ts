// Who holds an embedded PostgreSQL data directory: reads postmaster.pid and /proc (Linux) to tell
// a server that a running Mailroom owns (share it, never stop it) from an orphan left by a crash
// (stop it and start again). Starts and stops nothing itself.
import fs from 'node:fs';
import path from 'node:path';

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** True when `pid` is a postgres server for this data directory. */
export function isOurPostmaster(pid: number, databaseDir: string): boolean {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /postgres$/.test(args[0] ?? '') && args.includes(databaseDir);
  } catch {
    return false;
  }
}

function parentPid(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]); // "pid (comm) state ppid ..."
  } catch {
    return 0;
  }
}

/** A Node process (mailroom start, or a one-shot command that started the server itself). */
function isNodeProcess(pid: number): boolean {
  try {
    const exe = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0] ?? '';
    return /^node/.test(path.basename(exe));
  } catch {
    return false;
  }
}

export interface PostmasterState {
  pidFile: string;
  /** The postmaster's pid, when postmaster.pid names a live process. */
  pid?: number;
  /** The postmaster's port (line 4 of postmaster.pid). */
  port?: number;
  /** True when that process is a postgres server for this directory. */
  ours: boolean;
  /** The live Node process that started it (a running Mailroom); absent for an orphan. */
  ownerPid?: number;
}

export function postmasterState(databaseDir: string): PostmasterState {
  const pidFile = path.join(databaseDir, 'postmaster.pid');
  let lines: string[];
  try {
    lines = fs.readFileSync(pidFile, 'utf8').split('\n');
  } catch {
    return { pidFile, ours: false };
  }
  const pid = Number(lines[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !alive(pid)) return { pidFile, ours: false };
  const port = Number(lines[3]) || undefined;
  if (!isOurPostmaster(pid, databaseDir)) return { pidFile, pid, port, ours: false };
  const ppid = parentPid(pid);
  // After a crash the orphan is adopted by init (or a subreaper), which is not a Node process.
  const ownerPid = ppid > 1 && alive(ppid) && isNodeProcess(ppid) ? ppid : undefined;
  return { pidFile, pid, port, ours: true, ownerPid };
}
