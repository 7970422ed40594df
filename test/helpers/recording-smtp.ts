// A recording SMTP server on loopback for tests (stands in for a recipient's MX or a relay):
// records every accepted message, and can reject, slow down or drop on demand.
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export type RcptVerdict = undefined | { code: number; message: string }; // undefined = accept
export interface RecordedMessage {
  mailFrom: string;
  rcptTo: string[];
  raw: Buffer;
  secure: boolean;
  heloName: string;
  receivedAt: number; // the end of DATA
  answeredAt?: number; // when the DATA reply was given (set for accepted messages)
}
export interface RecordingSmtp {
  host: string;
  port: number;
  messages: RecordedMessage[];
  onMail: (address: string) => RcptVerdict; // replaceable; rejects MAIL FROM (extension of the brief)
  onRcpt: (address: string) => RcptVerdict; // replaceable at runtime
  onData: (msg: RecordedMessage) => RcptVerdict; // replaceable; a verdict rejects the whole DATA
  delayMs: number; // wait before replying to MAIL, RCPT and DATA (slow server)
  answerDelayMs: number; // a further wait before the reply to DATA only: the message is on the wire meanwhile
  held: Set<RecordedMessage>; // messages received whose DATA reply is not given yet (on the wire)
  dropConnections: boolean; // destroy the socket right after DATA is received, without a reply
  connections: number; // connections accepted so far
  waitFor(count: number, timeoutMs?: number): Promise<RecordedMessage[]>;
  close(): Promise<void>;
}

const smtpError = (verdict: { code: number; message: string }) =>
  Object.assign(new Error(verdict.message), { responseCode: verdict.code });

export async function startRecordingSmtp(
  opts: { starttls?: boolean; host?: string; port?: number } = {},
): Promise<RecordingSmtp> {
  const host = opts.host ?? '127.0.0.1';
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const waiters = new Set<() => void>();

  const state: RecordingSmtp = {
    host,
    port: 0,
    messages: [],
    onMail: () => undefined,
    onRcpt: () => undefined,
    onData: () => undefined,
    delayMs: 0,
    answerDelayMs: 0,
    held: new Set(),
    dropConnections: false,
    connections: 0,
    waitFor(count, timeoutMs = 5000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (state.messages.length < count) return;
          cleanup();
          resolve(state.messages.slice(0, count));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`recording SMTP: ${state.messages.length} of ${count} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    close: async () => {
      for (const conn of server.connections) conn._socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const dropSession = (session: SMTPServerSession) => {
    for (const conn of server.connections) if (conn.id === session.id) conn._socket.destroy();
  };

  const server: SMTPServer = new SMTPServer({
    logger: false,
    disableReverseLookup: true,
    authOptional: true,
    hideSTARTTLS: opts.starttls === false,
    disabledCommands: opts.starttls === false ? ['STARTTLS'] : [],
    closeTimeout: 200,
    size: 50 * 1024 * 1024,
    onConnect(_session, callback) {
      state.connections++;
      callback();
    },
    onMailFrom(address, _session, callback) {
      void sleep(state.delayMs).then(() => {
        const verdict = state.onMail(address.address);
        callback(verdict ? smtpError(verdict) : undefined);
      });
    },
    onRcptTo(address, _session, callback) {
      void sleep(state.delayMs).then(() => {
        const verdict = state.onRcpt(address.address);
        callback(verdict ? smtpError(verdict) : undefined);
      });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (state.dropConnections) return dropSession(session);
        const msg: RecordedMessage = {
          mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          rcptTo: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          secure: session.secure,
          heloName: session.hostNameAppearsAs,
          receivedAt: Date.now(),
        };
        state.held.add(msg);
        void sleep(state.delayMs + state.answerDelayMs).then(() => {
          state.held.delete(msg);
          const verdict = state.onData(msg);
          if (verdict) return callback(smtpError(verdict));
          msg.answeredAt = Date.now();
          state.messages.push(msg);
          for (const check of [...waiters]) check();
          callback();
        });
      });
    },
  });
  server.on('error', () => {}); // a client that vanishes mid-session is not a test failure

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  state.port = (server.server.address() as AddressInfo).port;
  return state;
}
