// An authoritative fake DNS server on loopback (UDP + TCP on one port) for tests: records are set
// in memory, every query is logged. Answers over 512 bytes on UDP carry TC unless EDNS allows more.
import dgram from 'node:dgram';
import net from 'node:net';
import dnsPacket from 'dns-packet';

export type DnsType = 'A' | 'AAAA' | 'MX' | 'TXT' | 'CNAME' | 'PTR';
type MxValue = { exchange: string; priority: number };
type TxtValue = string | string[];

export interface FakeDns {
  address: string; // '127.0.0.1:PORT' (for MAILROOM_DNS_SERVERS / Resolver#setServers)
  port: number;
  set(name: string, type: 'A' | 'AAAA' | 'CNAME' | 'PTR', values: string[]): void; // PTR: name is x.x.x.x.in-addr.arpa
  set(name: string, type: 'MX', values: MxValue[]): void;
  set(name: string, type: 'TXT', values: TxtValue[]): void;
  remove(name: string, type?: DnsType): void;
  fail(name: string, rcode: 'SERVFAIL' | 'REFUSED' | null): void;
  queries: { name: string; type: string }[];
  close(): Promise<void>;
}

const RCODE = { NOERROR: 0, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 } as const;
const TTL = 60;

const norm = (name: string): string => name.toLowerCase().replace(/\.+$/, '');

/** Splits a TXT value into character-strings of at most 255 bytes each. */
function txtChunks(value: TxtValue): Buffer[] {
  const parts = Array.isArray(value) ? value : [value];
  const out: Buffer[] = [];
  for (const part of parts) {
    const buf = Buffer.from(part, 'utf8');
    if (buf.length === 0) out.push(buf);
    for (let i = 0; i < buf.length; i += 255) out.push(buf.subarray(i, i + 255));
  }
  return out;
}

export async function startFakeDns(): Promise<FakeDns> {
  const zone = new Map<string, Map<DnsType, unknown[]>>();
  const failures = new Map<string, 'SERVFAIL' | 'REFUSED'>();
  const queries: { name: string; type: string }[] = [];

  function answerFor(name: string, type: string, answers: dnsPacket.Answer[], depth = 0): void {
    const records = zone.get(name);
    if (!records || depth > 8) return;
    const cname = records.get('CNAME') as string[] | undefined;
    if (cname && cname.length > 0 && type !== 'CNAME') {
      answers.push({ type: 'CNAME', name, ttl: TTL, class: 'IN', data: norm(cname[0]) });
      answerFor(norm(cname[0]), type, answers, depth + 1);
      return;
    }
    const values = records.get(type as DnsType) ?? [];
    for (const v of values) {
      if (type === 'MX') {
        const mx = v as MxValue;
        answers.push({
          type: 'MX',
          name,
          ttl: TTL,
          class: 'IN',
          data: { exchange: norm(mx.exchange), preference: mx.priority },
        });
      } else if (type === 'TXT') {
        answers.push({ type: 'TXT', name, ttl: TTL, class: 'IN', data: txtChunks(v as TxtValue) });
      } else if (type === 'CNAME' || type === 'PTR') {
        answers.push({ type, name, ttl: TTL, class: 'IN', data: norm(v as string) });
      } else {
        answers.push({ type: type as 'A' | 'AAAA', name, ttl: TTL, class: 'IN', data: v as string });
      }
    }
  }

  /** Builds the reply to one query; `maxUdp` is null for TCP. */
  function respond(msg: Buffer, maxUdp: number | null): Buffer | null {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return null;
    }
    const q = query.questions?.[0];
    const opt = (query.additionals ?? []).find((a) => a.type === 'OPT') as { udpPayloadSize?: number } | undefined;
    let rcode: number = RCODE.NOERROR;
    const answers: dnsPacket.Answer[] = [];
    if (q) {
      const name = norm(q.name);
      queries.push({ name, type: q.type });
      const failure = failures.get(name);
      if (failure) rcode = RCODE[failure];
      else if (!zone.has(name)) rcode = RCODE.NXDOMAIN;
      else answerFor(name, q.type, answers);
    }
    const flags = dnsPacket.AUTHORITATIVE_ANSWER | ((query.flags ?? 0) & dnsPacket.RECURSION_DESIRED) | rcode;
    const build = (withAnswers: boolean, extraFlags: number) =>
      dnsPacket.encode({
        id: query.id,
        type: 'response',
        flags: flags | extraFlags,
        questions: query.questions,
        answers: withAnswers ? answers : [],
        additionals: opt ? [{ type: 'OPT', name: '.', udpPayloadSize: 4096 } as dnsPacket.Answer] : [],
      });
    const full = build(true, 0);
    if (maxUdp === null) return full;
    const limit = opt ? Math.max(512, opt.udpPayloadSize ?? 512) : 512;
    if (full.length <= Math.min(limit, maxUdp)) return full;
    return build(false, dnsPacket.TRUNCATED_RESPONSE);
  }

  const udp = dgram.createSocket('udp4');
  udp.on('message', (msg, rinfo) => {
    const reply = respond(msg, 65000);
    if (reply) udp.send(reply, rinfo.port, rinfo.address);
  });
  udp.on('error', () => {});

  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2) {
        const len = buffered.readUInt16BE(0);
        if (buffered.length < 2 + len) break;
        const reply = respond(buffered.subarray(2, 2 + len), null);
        buffered = buffered.subarray(2 + len);
        if (!reply) continue;
        const prefix = Buffer.alloc(2);
        prefix.writeUInt16BE(reply.length);
        socket.write(Buffer.concat([prefix, reply]));
      }
    });
  });

  // Bind TCP first on port 0, then UDP on the same port; retry if UDP's port is taken.
  let port = 0;
  for (let attempt = 0; attempt < 20; attempt++) {
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, '127.0.0.1', () => {
        tcp.off('error', reject);
        resolve();
      });
    });
    port = (tcp.address() as net.AddressInfo).port;
    const ok = await new Promise<boolean>((resolve) => {
      const onError = () => resolve(false);
      udp.once('error', onError);
      udp.bind(port, '127.0.0.1', () => {
        udp.off('error', onError);
        resolve(true);
      });
    });
    if (ok) break;
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    if (attempt === 19) throw new Error('fake DNS: could not bind UDP and TCP on one port');
  }

  function set(name: string, type: DnsType, values: unknown[]): void {
    const key = norm(name);
    let records = zone.get(key);
    if (!records) zone.set(key, (records = new Map()));
    records.set(type, [...values]);
  }

  return {
    address: `127.0.0.1:${port}`,
    port,
    set: set as FakeDns['set'],
    remove(name, type) {
      const key = norm(name);
      if (!type) zone.delete(key);
      else {
        const records = zone.get(key);
        records?.delete(type);
        if (records && records.size === 0) zone.delete(key);
      }
    },
    fail(name, rcode) {
      if (rcode === null) failures.delete(norm(name));
      else failures.set(norm(name), rcode);
    },
    queries,
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all([
        new Promise<void>((resolve) => tcp.close(() => resolve())),
        new Promise<void>((resolve) => udp.close(() => resolve())),
      ]);
    },
  };
}
