// The app in capture delivery mode (every email is "delivered" at once, nothing leaves the
// machine) with a verified sending domain `example.com`, for webhook and tracking tests.
import type { Config } from '../../src/config/schema.js';
import { startTestApp, type TestApp } from './harness.js';

export interface CaptureApp extends TestApp {
  domainId: string;
  /** Sends one email from hello@example.com; returns its id. */
  send(opts?: { to?: string; html?: string; subject?: string }): Promise<string>;
}

export async function startCaptureApp(overrides: Partial<Config> = {}): Promise<CaptureApp> {
  const t = await startTestApp({ deliveryMode: 'capture', allowPrivateNetworks: true, ...overrides });
  let domainId: string;
  try {
    const { data, error } = await t.resend.domains.create({ name: 'example.com' });
    if (error) throw new Error(`creating example.com: ${error.message}`);
    domainId = data!.id;
    await t.resend.domains.verify(domainId);
  } catch (err) {
    await t.close(); // a before hook that fails leaves no after hook to close the app: the file held its 300 s timeout
    throw err;
  }
  return {
    ...t,
    domainId,
    async send(o = {}) {
      const r = await t.resend.emails.send({
        from: 'Acme <hello@example.com>',
        to: o.to ?? 'alice@dest.test',
        subject: o.subject ?? 'Hello',
        html: o.html ?? '<p>Hi</p>',
      });
      if (r.error) throw new Error(r.error.message);
      return r.data!.id;
    },
  };
}
