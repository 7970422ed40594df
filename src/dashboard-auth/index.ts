// The dashboard's sign-in capability, assembled once by the composition root and handed to the
// HTTP layer: sessions (also used by the API hook), accounts, the second factor, OAuth, password reset, throttling,
// and the system mail they send (held by no team).
import type { Config } from '../config/schema.js';
import type { EmailSender } from '../emails/send.js';
import type { Sealer } from '../lib/crypto.js';
import type { Logger } from '../lib/log.js';
import type { Pool } from '../store/db.js';
import { Accounts } from './accounts.js';
import { OAuth } from './oauth.js';
import { PasswordReset } from './password-reset.js';
import { SecondFactor } from './second-factor.js';
import { Sessions } from './sessions.js';
import { SystemMail } from './system-mail.js';
import { TeamAdmin } from './teams.js';
import { LoginThrottle } from './throttle.js';

export interface DashboardAuth {
  sessions: Sessions;
  accounts: Accounts;
  secondFactor: SecondFactor;
  oauth: OAuth;
  reset: PasswordReset;
  mail: SystemMail;
  teams: TeamAdmin;
}

export function createDashboardAuth(d: {
  pool: Pool;
  config: Config;
  sealer: Sealer;
  secretKey: string;
  sender: EmailSender;
  defaultTeamId: string;
  log: Logger;
}): DashboardAuth {
  const sessions = new Sessions(d.pool, d.secretKey, d.config.publicUrl.startsWith('https:'));
  const throttle = new LoginThrottle(d.pool);
  const mail = new SystemMail(d.pool, d.config, d.sender, d.log);
  return {
    sessions,
    accounts: new Accounts(d.pool, sessions, throttle, d.defaultTeamId, mail, d.config.publicUrl),
    secondFactor: new SecondFactor(d.pool, sessions, d.sealer, throttle),
    oauth: new OAuth(d.config, d.secretKey),
    reset: new PasswordReset(d.pool, d.config, mail, throttle, d.log),
    mail,
    teams: new TeamAdmin(d.pool),
  };
}
