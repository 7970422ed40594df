// A chat-completions server on loopback for the inbox agent's tests: each request is recorded
// (`seen`), and answered with the canned content whose key appears in the email the user message
// ends with (not in the thread's earlier messages before it), else no actions; `failures` makes a
// key's first calls 503.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Where the agent's user message puts the new email (after the thread's earlier messages). */
export const EMAIL_MARK = 'The email, as JSON data:';
/** Before it, the earlier messages as JSON, up to a blank line. */
export const PREVIOUS_MARK = 'Earlier messages of this conversation, oldest first, as JSON data (context only):\n';

/** The earlier messages a request carried (none: []). */
export function previousIn(user: string): { direction: string; from: string; subject: string; text: string }[] {
  const at = user.indexOf(PREVIOUS_MARK);
  if (at < 0) return [];
  const start = at + PREVIOUS_MARK.length;
  return JSON.parse(user.slice(start, user.indexOf('\n\n', start)));
}

export interface Seen {
  path: string;
  auth: string | undefined;
  body: {
    model: string;
    response_format: unknown;
    messages: { role: string; content: string }[];
  };
}

/** A chat-completions server: answers each request with the canned content whose key is in the email. */
export async function startModel(answers: Record<string, unknown>, failures: Map<string, number>) {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Seen['body'];
      seen.push({ path: req.url ?? '', auth: req.headers.authorization, body });
      const user = body.messages.find((m) => m.role === 'user')?.content ?? '';
      const at = user.lastIndexOf(EMAIL_MARK);
      const email = at >= 0 ? user.slice(at) : user;
      const key = Object.keys(answers).find((k) => email.includes(k));
      if (key && (failures.get(key) ?? 0) > 0) {
        failures.set(key, failures.get(key)! - 1);
        res.statusCode = 503;
        return res.end('overloaded');
      }
      const content = key ? JSON.stringify(answers[key]) : '{"actions":[]}';
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', content } }],
        }),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}
