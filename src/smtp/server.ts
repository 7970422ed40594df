// smtp-server 3.21.6 with two changes, made by subclassing (no patched node_modules):
// 1. no 100 ms wait before the greeting. The library holds every new connection for a hard-coded
//    100 ms "to detect early talkers" (SMTPConnection#init), which caps clients that open one
//    connection per message at sessions/0.1 s (20 sessions → 200 msg/s; DEPENDENCIES.md measured
//    185). Submission clients authenticate, so the spam heuristic buys nothing here; a client that
//    talks before the greeting is still refused ("You talk too soon"): the greeting just comes at once.
// 2. replies whose text already starts with an enhanced status code (ours, from the error table)
//    are sent as is, instead of getting the library's guess for the reply code prepended.
// 3. an overall deadline on DATA (the library only has an idle timeout, so a client trickling one
//    byte every 20 s held a connection and its buffers forever): 421 4.4.2, then the connection closes.
// 4. draining (shutdown, listen.ts): the listening socket stays open while sessions finish, and a
//    new session is greeted with 421 4.3.2 (a client tries another MX or submission host at once,
//    where a refused connection would be tried again on the same address first); a command from a
//    session is answered 421 4.3.2, but a DATA already being received goes on to its reply.
// 5. the session id of a new connection (no PROXY header expected: we never set useProxy) is a
//    per-process random prefix and a counter, 16 base-32 characters as the library's, instead of
//    10 bytes from crypto.randomBytes turned into a BigInt per connection: one of the larger items
//    of a connection's CPU in the profile of one message per connection (issue 27). Ids stay unique
//    within a process (the policy hooks count sessions by id) and unguessable across processes.
import { randomBytes } from 'node:crypto';
import type net from 'node:net';
import type tls from 'node:tls';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { AppError } from '../errors.js';
import { SMTPConnection, type SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection.js';

const ENHANCED = /^[245]\.\d{1,3}\.\d{1,3} /;
const SHUTTING_DOWN = new AppError('service_unavailable').toSmtp().message;
const DATA_TIMEOUT = new AppError('data_timeout').toSmtp();

/** 8 random base-32 characters for this process, then a counter (8 base-32 characters: 2^40 sessions). */
const ID_PREFIX = (BigInt(`0x${randomBytes(5).toString('hex')}`).toString(32) as string).padStart(8, '0');
let idCounter = 0;
export function nextSessionId(): string {
  idCounter = (idCounter + 1) % 2 ** 40;
  return ID_PREFIX + idCounter.toString(32).padStart(8, '0');
}

type ProxyCallback = Parameters<SMTPServer['_handleProxy']>[1];

export class SubmissionConnection extends SMTPConnection {
  override init(): void {
    if ((this._server as SubmissionServer).draining) {
      this._setListeners(() => this.send(421, SHUTTING_DOWN)); // a 421 closes the connection
      return;
    }
    this._setListeners(() => {
      const max = this._server.options.maxClients;
      if (max && this._server.connections.size > max) {
        return this.send(421, `${this.name} Too many connected clients, try again in a moment`, false);
      }
      this.connectionReady();
    });
  }

  override send(code: number, data?: string | string[] | null, context?: string | false): void {
    if (code === 421 && data === 'Server shutting down') data = SHUTTING_DOWN;
    if (typeof data === 'string' && ENHANCED.test(data)) return super.send(code, data, false);
    super.send(code, data, context);
  }

  override _onCommand(command: Buffer, callback?: () => void): void {
    // While a TLS handshake runs, what arrived in plaintext is dropped unanswered (the library's rule).
    if ((this._server as SubmissionServer).draining && !this._upgrading && this._ready) {
      this.send(421, SHUTTING_DOWN);
      return callback?.();
    }
    super._onCommand(command, callback);
  }

  override handler_DATA(command: Buffer, callback: () => void): void {
    super.handler_DATA(command, callback);
    const stream = this._dataStream;
    const limit = (this._server as SubmissionServer).dataTimeoutMs;
    if (!stream || !limit) return;
    const timer = setTimeout(() => {
      if (this._dataStream !== stream || !stream.readable) return; // the message arrived in time
      this.send(DATA_TIMEOUT.code, DATA_TIMEOUT.message);
      this.close();
    }, limit);
    timer.unref();
    stream.once('end', () => clearTimeout(timer));
    stream.once('close', () => clearTimeout(timer));
  }

  /** True when the message arrived in full (the final dot) and its handler (the store) has not answered yet. */
  get storing(): boolean {
    const d = this._dataStream as unknown as { writableEnded?: boolean } | false | null;
    return Boolean(d && d.writableEnded);
  }

  /** True while the client is sending DATA or a handler (policy, commit) has not answered yet. */
  get busy(): boolean {
    return Boolean(this._dataStream) || this._handlerPending;
  }
}

export class SubmissionServer extends SMTPServer {
  /** Shutting down: new sessions and new commands are answered 421 4.3.2 (listen.ts gracefulCloser). */
  draining = false;

  /** `dataTimeoutMs`: the longest a client may take to send one message's DATA (0 = no limit). */
  constructor(
    options: SMTPServerOptions,
    readonly dataTimeoutMs = 0,
  ) {
    super(options);
  }

  override connect(socket: net.Socket | tls.TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    const connection = new SubmissionConnection(this, socket, socketOptions);
    this.connections.add(connection);
    connection.on('error', (err) => this._onError(err));
    connection.on('connect', (data) => this._onClientConnect(data));
    connection.init();
  }

  /** The library's, minus its per-connection randomBytes id when no PROXY header is expected (see 5. above). */
  override _handleProxy(socket: net.Socket, callback: ProxyCallback): void {
    if (this.options.useProxy) return super._handleProxy(socket, callback);
    const ignored = this.options.ignoredHosts;
    const socketOptions = {
      id: nextSessionId(),
      ignore: Boolean(ignored && socket.remoteAddress !== undefined && ignored.includes(socket.remoteAddress)),
    };
    setImmediate(() => callback(null, socketOptions));
  }

  /** Connections not in the middle of a message or a pending reply. */
  idleConnections(): SMTPConnection[] {
    return [...this.connections].filter((c) => !(c as SubmissionConnection).busy);
  }
}
