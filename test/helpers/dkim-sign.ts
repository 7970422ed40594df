// Signs a message as a remote sender's DKIM would (mailauth's signer, relaxed/relaxed), for the
// inbound tests and the inbound benchmark. mailauth's types (4.13) require the key fields at the top
// level, but its signer reads keys only from `signatureData` (lib/dkim/dkim-signer.js), which
// is the call made here: the one cast says so once.
import type { DKIMSignOptions } from 'mailauth';
import { dkimSign } from 'mailauth/lib/dkim/sign.js';

export interface SenderKey {
  signingDomain: string;
  selector: string;
  privateKey: string;
}

/** The DKIM-Signature header (CRLF-ended) to put in front of `raw`. */
export async function senderDkimSignature(raw: Buffer, key: SenderKey): Promise<string> {
  const r = await dkimSign(raw, { canonicalization: 'relaxed/relaxed', signatureData: [key] } as DKIMSignOptions);
  if (r.errors?.length) throw new Error(`DKIM signing failed: ${JSON.stringify(r.errors)}`);
  return r.signatures;
}
