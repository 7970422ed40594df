// Remembers the public keys mailauth builds from DKIM and ARC key records. mailauth (4.13) turns
// the TXT record into a key object, checks it and exports it as PEM again for every signature it
// verifies: 0.4 ms of CPU per received message here, a fifth of a 10 KB message's (issue 27).
// Its result depends only on the record's text, the key type asked for and the minimum length,
// so it is kept under exactly those (at most MAX_KEYS); the record itself is still looked up for
// every message through the resolver (the inbound DNS cache), so a changed key is seen as soon
// as the record is. Installed by replacing mailauth's tools.getPublicKey before mailauth's
// verifiers load (they take it from tools when they load): installKeyCache() runs before the
// first import of mailauth (authenticate.ts), and test/inbound/dkim-key-cache.test.ts fails if
// mailauth stops taking it from there.
import { createRequire } from 'node:module';

const MAX_KEYS = 1000;

type Resolve = (name: string, type: string) => Promise<unknown>;
type GetPublicKey = (
  type: string,
  name: string,
  minBitLength: number | undefined,
  resolver?: Resolve,
) => Promise<{ publicKey: Buffer | string; rr: string; modulusLength: number }>;

let installed: { built: () => number } | undefined;

/** Wraps mailauth's getPublicKey (once per process); `built` counts keys actually built (for tests). */
export function installKeyCache(): { built: () => number } {
  if (installed) return installed;
  const tools = createRequire(import.meta.url)('mailauth/lib/tools.js') as { getPublicKey: GetPublicKey };
  const original = tools.getPublicKey;
  const keys = new Map<string, ReturnType<GetPublicKey>>();
  let built = 0;
  tools.getPublicKey = async (type, name, minBitLength, resolver) => {
    const answer = await (resolver ?? defaultResolve)(name, 'TXT'); // throws as mailauth's own lookup would
    const key = JSON.stringify([type, minBitLength ?? null, answer]);
    const hit = keys.get(key);
    if (hit) return hit;
    built++;
    // The same answer, not a second lookup. Frozen: every message verified with this record shares
    // the object (mailauth only reads its publicKey PEM string, rr and modulusLength).
    const made = original(type, name, minBitLength, async () => answer).then((k) => Object.freeze(k));
    made.then(
      () => {
        if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!); // the oldest first
        keys.set(key, made);
      },
      () => undefined, // a record that is not a usable key is judged again each time
    );
    return made;
  };
  installed = { built: () => built };
  return installed;
}

const defaultResolve: Resolve = async (name, type) => {
  const { promises } = await import('node:dns');
  return promises.resolve(name, type as 'TXT');
};
