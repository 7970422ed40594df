// System mail (password resets, address verification): sent through the one send path from
// MAILROOM_DASHBOARD_FROM (a verified domain of whichever team owns it), but held by the hidden
// system team, so no tenant reads its links through the API, raw MIME, webhooks or metrics.
// In `capture` mode nothing leaves the machine, so the message is written to the server log
// (the operator's own machine) instead of a team's Mailbox.
import type { Config } from '../config/schema.js';
import { AppError } from '../errors.js';
import { parseAddress } from '../mime/addresses.js';
import type { EmailSender, SendContext } from '../emails/send.js';
import type { Logger } from '../lib/log.js';
import type { Pool } from '../store/db.js';
import { domainTeamByName } from '../store/domains.js';
import { SYSTEM_TEAM_ID } from '../store/teams.js';

export interface SystemMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  category: string;
}

export class SystemMail {
  constructor(
    private readonly pool: Pool,
    private readonly config: Config,
    private readonly sender: EmailSender,
    private readonly log: Logger,
  ) {}

  available(): boolean {
    return Boolean(this.config.dashboardFrom);
  }

  /** Checks the sender can be used now: a misconfiguration is reported whatever the recipient. */
  async context(): Promise<SendContext> {
    if (!this.config.dashboardFrom)
      throw new AppError(
        'validation_error',
        'Email from this server is not set up (MAILROOM_DASHBOARD_FROM). Ask an owner or the operator.',
      );
    const from = parseAddress(this.config.dashboardFrom, 'from');
    const teamId = await domainTeamByName(this.pool, from.domain);
    const ctx: SendContext = {
      teamId: teamId ?? SYSTEM_TEAM_ID,
      apiKeyId: null,
      keyDomainId: null,
      source: 'api',
      dataTeamId: SYSTEM_TEAM_ID,
    };
    await this.sender.sendingDomain(ctx, from.domain);
    return ctx;
  }

  /** Sends one message; answers its email id (visible to no team). */
  async send(m: SystemMessage, ctx?: SendContext): Promise<string> {
    const c = ctx ?? (await this.context());
    const email = await this.sender.prepare(
      c,
      {
        from: this.config.dashboardFrom,
        to: [m.to],
        subject: m.subject,
        text: m.text,
        html: m.html,
        tags: [{ name: 'category', value: m.category }],
      },
      { allowAttachments: false },
    );
    await this.sender.commit(email);
    if (this.config.deliveryMode === 'capture')
      this.log.info('capture mode: system mail', { to: m.to, subject: m.subject, text: m.text });
    return email.row.id;
  }
}
