// The instance secret (MAILROOM_SECRET_KEY), or one generated into the data directory on first
// start and reused after. Processes on several machines must share MAILROOM_SECRET_KEY.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export function resolveSecretKey(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, 'secret.key');
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  try {
    fs.writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as { code?: string }).code === 'EEXIST') return fs.readFileSync(file, 'utf8').trim(); // another process won
    throw err;
  }
  return key;
}
