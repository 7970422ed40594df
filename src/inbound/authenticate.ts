// SPF, DKIM, DMARC and ARC of a received message, evaluated by mailauth through the configured
// resolver, reduced to Resend's vocabulary (pass|fail|gray|processing_failed|unknown).
import type { Readable } from 'node:stream';
import { installKeyCache } from './dkim-key-cache.js';
import type { ResolveFn } from './dns-cache.js';

export type AuthVerdict = 'pass' | 'fail' | 'gray' | 'processing_failed' | 'unknown';
export interface Authentication {
  spf: AuthVerdict;
  dkim: AuthVerdict;
  dmarc: AuthVerdict;
  arc: AuthVerdict;
}

/** mailauth's result words (RFC 8601) to Resend's. */
export function verdict(result: string | undefined): AuthVerdict {
  switch (result) {
    case 'pass':
      return 'pass';
    case 'fail':
    case 'softfail':
    case 'policy':
      return 'fail';
    case 'neutral':
    case 'none':
      return 'gray';
    case 'temperror':
    case 'permerror':
      return 'processing_failed';
    default:
      return 'unknown';
  }
}

type Status = { status?: { result?: string } } | false | undefined;
const resultOf = (x: Status) => (x && typeof x === 'object' ? x.status?.result : undefined);

// mailauth (with its SPF, DMARC, ARC and BIMI code and their dependencies) is half a second of
// module loading: loaded with the first message received, not by every process at start. Its
// key building is cached (dkim-key-cache.ts), installed before it loads.
let loaded: Promise<typeof import('mailauth')> | undefined;
const mailauth = () => {
  loaded ??= Promise.resolve().then(() => {
    installKeyCache();
    return import('mailauth');
  });
  return loaded;
};

export async function authenticateInbound(
  input: Buffer | Readable,
  env: { ip: string; helo: string; sender: string; mta: string; resolve: ResolveFn },
): Promise<Authentication> {
  try {
    const { authenticate } = await mailauth();
    const res = await authenticate(input, {
      ip: env.ip,
      helo: env.helo,
      sender: env.sender,
      mta: env.mta,
      disableBimi: true,
      resolver: env.resolve as (name: string, type: string) => Promise<never>,
    });
    // DKIM: pass when any signature passes (the aligned one matters for DMARC, reported separately).
    const dkimResults = (res.dkim?.results ?? []).map((r: { status?: { result?: string } }) => r.status?.result);
    const dkim = dkimResults.includes('pass') ? 'pass' : verdict(dkimResults[0]);
    return {
      spf: verdict(resultOf(res.spf as Status)),
      dkim,
      dmarc: verdict(resultOf(res.dmarc as Status)),
      arc: verdict(resultOf(res.arc as Status)),
    };
  } catch {
    return {
      spf: 'processing_failed',
      dkim: 'processing_failed',
      dmarc: 'processing_failed',
      arc: 'processing_failed',
    };
  }
}
