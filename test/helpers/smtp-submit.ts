// Clients for the SMTP submission tests: nodemailer transports for each listener kind (trusting
// the installation's generated certificate), and a raw line-level client for protocol edge cases.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import type { SmtpListener } from '../../src/config/schema.js';
import type { TestApp } from './harness.js';

/** Listener config for startTestApp: one STARTTLS and one implicit-TLS listener on free ports. */
export const SMTP_TEST_LISTENERS: SmtpListener[] = [
  { host: '127.0.0.1', port: 0, security: 'starttls' },
  { host: '127.0.0.1', port: 0, security: 'tls' },
];

export function listener(t: TestApp, security: 'starttls' | 'tls'): SmtpListener {
  const l = t.app.smtpListeners?.find((x) => x.security === security);
  if (!l) throw new Error(`no ${security} listener`);
  return l;
}

export const caOf = (t: TestApp) => fs.readFileSync(path.join(t.dataDir, 'smtp-tls.crt'), 'utf8');

export function transport(
  t: TestApp,
  security: 'starttls' | 'tls',
  opts: { user?: string; pass?: string; auth?: false; localAddress?: string } = {},
) {
  const l = listener(t, security);
  return nodemailer.createTransport({
    host: l.host,
    port: l.port,
    secure: security === 'tls',
    requireTLS: security === 'starttls',
    ...(opts.auth === false ? {} : { auth: { user: opts.user ?? 'resend', pass: opts.pass ?? t.key } }),
    tls: { ca: caOf(t), servername: 'localhost' },
    ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
  });
}

/** The email id in "250 2.0.0 Ok: queued as <id>". */
export function queuedId(response: string): string {
  const m = /^250 2\.0\.0 Ok: queued as ([0-9a-f-]{36})$/.exec(response);
  if (!m) throw new Error(`unexpected DATA reply: ${response}`);
  return m[1];
}

/** A line-level SMTP client: write commands, read complete (multi-line) replies. */
export class RawSmtp {
  private buf = '';
  private waiters: (() => void)[] = [];
  closed = false;
  private constructor(public socket: net.Socket) {
    this.attach(socket);
  }

  private attach(socket: net.Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => {
      this.buf += d;
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  private wake() {
    for (const w of this.waiters.splice(0)) w();
  }

  static async connect(l: SmtpListener, opts: { tls?: boolean; localAddress?: string } = {}): Promise<RawSmtp> {
    const socket = opts.tls
      ? tls.connect({
          host: l.host,
          port: l.port,
          rejectUnauthorized: false,
          ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
        })
      : net.connect({ host: l.host, port: l.port, ...(opts.localAddress ? { localAddress: opts.localAddress } : {}) });
    await new Promise<void>((resolve, reject) => {
      socket.once(opts.tls ? 'secureConnect' : 'connect', () => resolve());
      socket.once('error', reject);
    });
    return new RawSmtp(socket);
  }

  /** Upgrades the connection after a 220 reply to STARTTLS. */
  async starttls(): Promise<void> {
    this.socket.removeAllListeners('data');
    this.socket.removeAllListeners('close');
    const secure = tls.connect({ socket: this.socket, rejectUnauthorized: false });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', reject);
    });
    this.socket = secure;
    this.buf = '';
    this.attach(secure);
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }

  /** Reads the next complete reply (all lines up to "NNN "), or '' when the connection closed. */
  async reply(timeoutMs = 5000): Promise<string> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const m = /^(?:\d{3}-[^\n]*\n)*\d{3}(?: [^\n]*)?\r?\n/.exec(this.buf);
      if (m) {
        this.buf = this.buf.slice(m[0].length);
        return m[0].trimEnd();
      }
      if (this.closed) return '';
      const left = until - Date.now();
      if (left <= 0)
        throw new Error(`no SMTP reply within ${timeoutMs} ms; buffer: ${JSON.stringify(this.buf.slice(0, 200))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async cmd(line: string): Promise<string> {
    this.write(`${line}\r\n`);
    return this.reply();
  }

  /** Logs in with AUTH PLAIN (the connection must be under TLS). */
  async login(key: string, user = 'resend'): Promise<string> {
    return this.cmd(`AUTH PLAIN ${Buffer.from(`\0${user}\0${key}`).toString('base64')}`);
  }

  close(): void {
    this.socket.destroy();
  }
}
