// Turns whatever a command threw into one sentence for the terminal (never a stack trace), with a
// hint where the cause is known: PostgreSQL unreachable, a refused login, a missing database.
// A UsageError (the command line is wrong: exit 2, with the usage) is told apart from a
// CommandFailure (well formed, but it names nothing, or the work failed: exit 1, one sentence).

export class UsageError extends Error {}
export class CommandFailure extends Error {}

function where(databaseUrl: string | undefined): string {
  if (!databaseUrl) return 'the embedded PostgreSQL';
  try {
    const u = new URL(databaseUrl);
    return `PostgreSQL at ${u.hostname}:${u.port || 5432} (MAILROOM_DATABASE_URL)`;
  } catch {
    return 'the PostgreSQL of MAILROOM_DATABASE_URL';
  }
}

export function explainError(err: unknown, databaseUrl?: string): string {
  if (err === undefined || err === null) return 'it failed without giving a reason (a library rejected with nothing).';
  if (!(err instanceof Error)) return String(err);
  const e = err as Error & { code?: string };
  // Node 20 rejects a connection to `localhost` (two addresses) with an AggregateError and no message.
  const inner = (err as Partial<AggregateError>).errors
    ?.map((x: Error) => x?.message)
    .filter(Boolean)
    .join('; ');
  const message = e.message || inner || e.name;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `Cannot reach ${where(databaseUrl)}: ${message}. Is it running?`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Cannot resolve the host of ${where(databaseUrl)}: ${message}.`;
    case 'ETIMEDOUT':
      return `No answer from ${where(databaseUrl)}: ${message}.`;
    case '28P01':
    case '28000':
      return `${where(databaseUrl)} refused the login: ${message}. Check the user and password.`;
    case '3D000':
      return `${where(databaseUrl)}: ${message}. Create it, or name another database.`;
    case 'EADDRINUSE':
      return `${message}: another process listens there (another Mailroom?). Stop it, or choose other addresses (MAILROOM_HTTP_LISTEN, MAILROOM_SMTP_LISTEN, MAILROOM_MX_LISTEN).`;
    case 'EACCES':
      if ((e as { syscall?: string }).syscall !== 'listen') break;
      return `${message}: permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE).`;
    default:
      break;
  }
  if (/client password must be a string/.test(message))
    return `${where(databaseUrl)} asks for a password and the URL has none: put it in MAILROOM_DATABASE_URL (postgres://user:password@host/db).`;
  return message;
}
