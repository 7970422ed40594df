// Outbound SMTP connections, pooled per destination (address:port + TLS policy + HELO + auth) and
// reused across messages, at most `maxPerHost` open per address:port. Knows SMTP, not messages.
import net from 'node:net';
import SMTPConnection from 'nodemailer/lib/smtp-connection/index.js';

export type TlsPolicy = 'opportunistic' | 'enforced';

export interface Target {
  address: string; // IP or host name to connect to
  port: number;
  servername?: string; // MX name, for SNI and messages
  tls: TlsPolicy;
  secure?: boolean; // implicit TLS (smtps relay)
  heloName: string;
  auth?: { user: string; pass: string };
  localAddress?: string; // source IP for this connection (per-region egress)
}

export interface PoolOptions {
  maxPerHost?: number; // default 5
  idleMs?: number; // close an unused connection after this, default 30 s
  maxMessagesPerConnection?: number; // default 100, then the connection is retired
  timeoutMs?: number; // connect, greeting and socket inactivity, default 60 s
}

export interface Lease {
  connection: SMTPConnection;
  secure: boolean; // TLS was used (implicit or STARTTLS)
  reused: boolean;
  /** Returns the connection; `dirty` after a failed transaction (an RSET is sent before reuse). */
  release(opts?: { dirty?: boolean; broken?: boolean }): void;
}

export class ConnectError extends Error {
  constructor(
    message: string,
    readonly response?: string,
    readonly responseCode?: number,
    readonly policy = false,
  ) {
    super(message);
  }
}

interface Slot {
  key: string;
  hostKey: string;
  connection: SMTPConnection;
  messages: number;
  idleTimer?: NodeJS.Timeout;
  closed: boolean;
}

type SmtpErr = Error & { code?: string; response?: string; responseCode?: number };

export class Pool {
  private readonly idle = new Map<string, Slot[]>();
  private readonly open = new Map<string, Set<Slot>>(); // per address:port
  private readonly waiters = new Map<string, (() => void)[]>();
  private readonly handshaking = new Set<SMTPConnection>(); // not yet a slot: cut by abortAll too
  private readonly opts: Required<PoolOptions>;
  private closing = false;

  constructor(opts: PoolOptions = {}) {
    this.opts = { maxPerHost: 5, idleMs: 30_000, maxMessagesPerConnection: 100, timeoutMs: 60_000, ...opts };
  }

  /** Open connections (busy + idle), for tests and metrics. */
  size(): number {
    let n = 0;
    for (const set of this.open.values()) n += set.size;
    return n;
  }

  async acquire(target: Target): Promise<Lease> {
    if (this.closing) throw new ConnectError('connection pool is shut down');
    const key = JSON.stringify([
      target.address,
      target.port,
      target.servername,
      target.tls,
      target.secure,
      target.heloName,
      target.auth?.user,
      target.auth?.pass,
      target.localAddress,
    ]);
    const hostKey = `${target.address}:${target.port}`;
    const deadline = Date.now() + this.opts.timeoutMs;
    for (;;) {
      const slot = this.takeIdle(key);
      if (slot) return this.lease(slot, true);
      const set = this.open.get(hostKey) ?? new Set<Slot>();
      if (set.size < this.opts.maxPerHost) return this.lease(await this.connect(target, key, hostKey), false);
      // Full: make room by closing an idle connection of another policy to the same host, or wait.
      const other = [...set].find((s) => s.idleTimer !== undefined && s.key !== key);
      if (other) {
        this.retire(other);
        continue;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new ConnectError(`no free connection to ${hostKey} within ${this.opts.timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const list = this.waiters.get(hostKey) ?? [];
        const timer = setTimeout(wake, remaining);
        function wake() {
          clearTimeout(timer);
          const i = list.indexOf(wake);
          if (i >= 0) list.splice(i, 1);
          resolve();
        }
        list.push(wake);
        this.waiters.set(hostKey, list);
      });
    }
  }

  /** Closes every connection (QUIT when idle); later acquire() calls fail. */
  async closeAll(): Promise<void> {
    this.closing = true;
    const slots = [...this.open.values()].flatMap((s) => [...s]).filter((s) => s.connection);
    await Promise.all(
      slots.map(
        (slot) =>
          new Promise<void>((resolve) => {
            if (slot.closed) return resolve();
            const timer = setTimeout(() => {
              slot.connection.close();
              resolve();
            }, 1000);
            slot.connection.once('end', () => {
              clearTimeout(timer);
              resolve();
            });
            this.retire(slot);
          }),
      ),
    );
    for (const list of this.waiters.values()) for (const wake of [...list]) wake();
  }

  /**
   * Cuts every connection now, without QUIT (shutdown past its deadline): a message whose DATA has
   * not been ended is then not delivered by this process, so its job, given back to the queue, is
   * sent once, by another. Later acquire() calls fail.
   */
  abortAll(): void {
    this.closing = true;
    for (const connection of this.handshaking) connection.close(); // its handshake fails: ConnectError
    for (const slot of [...this.open.values()].flatMap((s) => [...s])) {
      slot.connection.close();
      this.forget(slot);
    }
    for (const list of this.waiters.values()) for (const wake of [...list]) wake();
  }

  private takeIdle(key: string): Slot | undefined {
    const list = this.idle.get(key);
    while (list && list.length > 0) {
      const slot = list.pop()!;
      clearTimeout(slot.idleTimer);
      slot.idleTimer = undefined;
      if (!slot.closed && !slot.connection.destroyed) return slot;
    }
    return undefined;
  }

  private lease(slot: Slot, reused: boolean): Lease {
    let released = false;
    return {
      connection: slot.connection,
      secure: slot.connection.secure,
      reused,
      release: ({ dirty = false, broken = false } = {}) => {
        if (released) return;
        released = true;
        slot.messages++;
        if (broken || this.closing || slot.closed || slot.messages >= this.opts.maxMessagesPerConnection)
          return this.retire(slot);
        if (!dirty) return this.park(slot);
        slot.connection.reset((err) => (err ? this.retire(slot) : this.park(slot)));
      },
    };
  }

  private park(slot: Slot): void {
    if (slot.closed || slot.connection.destroyed) return this.forget(slot);
    slot.idleTimer = setTimeout(() => this.retire(slot), this.opts.idleMs);
    slot.idleTimer.unref();
    const list = this.idle.get(slot.key) ?? [];
    list.push(slot);
    this.idle.set(slot.key, list);
    this.wake(slot.hostKey);
  }

  private retire(slot: Slot): void {
    if (slot.closed) return;
    try {
      slot.connection.quit(); // QUIT, then the socket closes and 'end' calls forget()
    } catch {
      slot.connection.close();
    }
    this.forget(slot);
  }

  private forget(slot: Slot): void {
    slot.closed = true;
    clearTimeout(slot.idleTimer);
    slot.idleTimer = undefined;
    this.open.get(slot.hostKey)?.delete(slot);
    const list = this.idle.get(slot.key);
    if (list) {
      const i = list.indexOf(slot);
      if (i >= 0) list.splice(i, 1);
    }
    this.wake(slot.hostKey);
  }

  private wake(hostKey: string): void {
    this.waiters.get(hostKey)?.[0]?.();
  }

  private async connect(target: Target, key: string, hostKey: string): Promise<Slot> {
    const set = this.open.get(hostKey) ?? new Set<Slot>();
    this.open.set(hostKey, set);
    // Reserve the place while connecting so that concurrent callers respect maxPerHost.
    const placeholder = { key, hostKey, closed: false, messages: 0 } as Slot;
    set.add(placeholder);
    try {
      let connection: SMTPConnection;
      try {
        connection = await this.handshake(target, false);
      } catch (err) {
        // Opportunistic TLS: a failed STARTTLS handshake falls back to a plaintext session.
        if (target.tls !== 'opportunistic' || target.secure || (err as SmtpErr).code !== 'ETLS') throw err;
        connection = await this.handshake(target, true);
      }
      const slot: Slot = { key, hostKey, connection, messages: 0, closed: false };
      connection.on('error', () => this.forget(slot)); // one socket error must never crash the process
      connection.on('end', () => this.forget(slot));
      set.add(slot);
      return slot;
    } finally {
      set.delete(placeholder);
    }
  }

  private handshake(target: Target, plaintext: boolean): Promise<SMTPConnection> {
    const t = this.opts.timeoutMs;
    // SNI takes host names only (Node warns on an IP address).
    const servername = target.servername && net.isIP(target.servername) === 0 ? target.servername : undefined;
    const connection = new SMTPConnection({
      host: target.address,
      port: target.port,
      secure: target.secure ?? false,
      servername,
      name: target.heloName,
      ...(target.localAddress ? { localAddress: target.localAddress } : {}),
      // MX certificates are commonly self-signed or name another host; opportunistic TLS still
      // encrypts. 'enforced' requires STARTTLS but cannot verify what most MX hosts present.
      tls: { rejectUnauthorized: false, servername },
      requireTLS: target.tls === 'enforced' && !target.secure,
      opportunisticTLS: target.tls === 'opportunistic',
      ignoreTLS: plaintext,
      connectionTimeout: Math.min(t, 30_000),
      greetingTimeout: Math.min(t, 30_000),
      socketTimeout: t,
      socketCloseTimeout: 1000,
      logger: false,
    });
    this.handshaking.add(connection);
    return new Promise((resolve, reject) => {
      let done = false;
      const fail = (err: SmtpErr) => {
        if (done) return;
        done = true;
        this.handshaking.delete(connection);
        connection.close();
        const policy = target.tls === 'enforced' && (err.code === 'ETLS' || /STARTTLS/i.test(err.message));
        const message = policy
          ? `TLS is enforced but ${target.servername ?? target.address} did not complete STARTTLS: ${err.message}`
          : err.message;
        reject(new ConnectError(message, err.response, err.responseCode, policy));
      };
      connection.on('error', () => {}); // a late second socket error must not become an uncaught 'error'
      connection.once('error', fail);
      const onEnd = () =>
        fail(Object.assign(new Error('connection closed during the SMTP handshake'), { code: 'ECONNECTION' }));
      connection.once('end', onEnd);
      connection.connect((err) => {
        if (err) return fail(err as SmtpErr);
        if (!target.auth) return settle();
        connection.login({ user: target.auth.user, pass: target.auth.pass }, (loginErr) =>
          loginErr ? fail(loginErr as SmtpErr) : settle(),
        );
      });
      const settle = () => {
        if (done) return;
        done = true;
        this.handshaking.delete(connection);
        connection.removeListener('error', fail);
        connection.removeListener('end', onEnd);
        resolve(connection);
      };
    });
  }
}
