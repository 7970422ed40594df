// Secrets at rest: AES-256-GCM with a key derived (HKDF-SHA256) from MAILROOM_SECRET_KEY.
// Sealed values are "v1:<iv b64>:<tag b64>:<ciphertext b64>" so the format can change later.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

export class Sealer {
  private readonly key: Buffer;
  constructor(secret: string, purpose = 'mailroom-secrets-at-rest') {
    this.key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), purpose, 32));
  }
  seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.key, iv);
    const ct = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return ['v1', iv.toString('base64'), c.getAuthTag().toString('base64'), ct.toString('base64')].join(':');
  }
  open(sealed: string): string {
    const [v, iv, tag, ct] = sealed.split(':');
    if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('unsupported sealed value');
    const d = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    d.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(ct, 'base64')), d.final()]).toString('utf8');
  }
}
