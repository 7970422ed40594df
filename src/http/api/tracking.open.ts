// GET /t/o/<token>.gif (public: no key, no rate limit, not in the request log): the open-tracking
// pixel. A valid token records the open (buffered, see tracking/recorder.ts) and answers a 1x1
// transparent GIF that must not be cached; anything else is 404.
import { Type } from 'typebox';
import { AppError } from '../../errors.js';
import type { ApiApp, ApiDeps } from '../types.js';

const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

export default function register(app: ApiApp, deps: ApiDeps): void {
  app.get(
    '/t/o/:file',
    { config: { public: true }, schema: { hide: true, params: Type.Object({ file: Type.String() }) } },
    async (req, reply) => {
      const file = req.params.file;
      const emailId = file.endsWith('.gif') ? deps.tracking.signer.verifyOpen(file.slice(0, -4)) : null;
      if (!emailId) throw new AppError('not_found');
      if (req.method === 'GET')
        deps.tracking.recorder.record({
          kind: 'open',
          emailId,
          ip: req.ip,
          userAgent: req.headers['user-agent'],
          at: new Date(),
        });
      return reply
        .header('cache-control', 'no-store, no-cache, must-revalidate, max-age=0')
        .type('image/gif')
        .send(PIXEL);
    },
  );
}
