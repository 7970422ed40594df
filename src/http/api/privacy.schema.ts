// Who may see data-subject requests (shared by /privacy/erasures and /privacy/exports): full-access
// keys (the hooks refuse sending keys) and dashboard owners and admins. A member's session would
// otherwise read an export's download link, and with it everything held about someone.
import { AppError } from '../../errors.js';
import type { RequestAuth } from '../types.js';

export function assertPrivacyReader(auth: RequestAuth): void {
  if ('session' in auth && auth.session.role === 'member')
    throw new AppError('forbidden', 'Only owners and admins can see erasures and exports.');
}
