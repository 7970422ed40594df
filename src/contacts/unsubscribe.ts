// Unsubscribing through a signed token (one-click POST, the preference page's forms, the mailto
// address): which contact and list the token names, and the change, committed with its
// contact.updated (contact.created for an address that was no contact) and, for a departure, an
// email.unsubscribed on the email's timeline, in one transaction. Nothing is cached: the next
// delivery reads the new state (store/emails.ts holds list mail for contacts who left).
//
// Scope of a one-click (and mailto) unsubscribe: an email sent for a topic → the contact opts out
// of that topic; otherwise (broadcast without topic, automation), or when the topic no longer
// exists → the contact unsubscribes from all list mail (`unsubscribed: true`). A recipient who is
// not a contact becomes one, created with that choice, so later list mail is held for it; it is
// not put on the suppression list (that would stop transactional mail too).
import { makeEvent } from '../events/email-events.js';
import { withTx, type Pool, type Tx } from '../store/db.js';
import { emailEventsInsert } from '../store/emails.js';
import { contactFind, contactInsert, contactUpdate, type ContactRow } from '../store/contacts.js';
import { contactTopicsSet, topicFind, type Subscription } from '../store/topics.js';
import {
  emailFindForUnsubscribe,
  topicListForPreferences,
  type EmailForUnsubscribe,
  type PreferenceTopic,
} from '../store/unsubscribe.js';
import { distinctRecipients, type UnsubscribeSigner } from '../tracking/unsubscribe-tokens.js';
import { recordEvent } from './service.js';

export type UnsubscribeAction = 'one_click' | 'leave_topic' | 'join_topic' | 'leave_all' | 'resubscribe';
export const UNSUBSCRIBE_ACTIONS: readonly UnsubscribeAction[] = [
  'one_click',
  'leave_topic',
  'join_topic',
  'leave_all',
  'resubscribe',
];

export interface PreferenceView {
  address: string;
  /** the sender's display name, else the team's name */
  sender: string;
  unsubscribed: boolean;
  topics: PreferenceTopic[];
  /** the topic the email was sent for, when it still exists */
  emailTopicId: string | null;
}

export interface ApplyResult {
  view: PreferenceView;
  changed: boolean;
  scope: 'topic' | 'all' | null;
}

interface Target {
  email: EmailForUnsubscribe;
  address: string;
}
type Change =
  | { kind: 'topic'; topicId: string; subscription: Subscription }
  | { kind: 'global'; unsubscribed: boolean };

const displayName = (from: string): string | undefined => {
  const m = /^\s*(?:"((?:[^"\\]|\\.)*)"|([^<"]*?))\s*</.exec(from);
  const name = (m?.[1] ?? m?.[2])?.replace(/\\(.)/g, '$1').trim();
  return name || undefined;
};

export class Unsubscribes {
  constructor(
    private readonly pool: Pool,
    readonly signer: UnsubscribeSigner,
  ) {}

  /** True for a token signed here (no database read): the MX refuses other addresses at RCPT. */
  valid(token: string): boolean {
    return this.signer.verify(token) !== null;
  }

  private async target(token: string): Promise<Target | undefined> {
    const t = this.signer.verify(token);
    if (!t) return undefined;
    const email = await emailFindForUnsubscribe(this.pool, t.emailId);
    const address = email && distinctRecipients(email.to_addrs, email.cc_addrs, email.bcc_addrs)[t.ordinal];
    return email && address ? { email, address } : undefined;
  }

  /** The preference page's content, or undefined for a token that names nothing (404). */
  async view(token: string): Promise<PreferenceView | undefined> {
    const t = await this.target(token);
    return t && this.viewOf(this.pool, t);
  }

  private async viewOf(db: Pool | Tx, t: Target): Promise<PreferenceView> {
    const contact = await contactFind(db, t.email.team_id, { email: t.address });
    const topics = await topicListForPreferences(db, t.email.team_id, contact?.id ?? null, t.email.topic_id);
    return {
      address: t.address,
      sender: displayName(t.email.from_header) ?? t.email.team_name,
      unsubscribed: contact?.unsubscribed ?? false,
      topics,
      emailTopicId: topics.some((x) => x.id === t.email.topic_id) ? t.email.topic_id : null,
    };
  }

  /**
   * Applies an action for the token's recipient. `topicId` (leave_topic, join_topic) must be a
   * topic the page lists; otherwise the result is undefined, as for an unknown token.
   */
  async apply(
    token: string,
    action: UnsubscribeAction,
    opts: { topicId?: string; via: 'one_click' | 'page' | 'mailto' },
  ): Promise<ApplyResult | undefined> {
    const t = await this.target(token);
    if (!t) return undefined;
    return withTx(this.pool, async (tx) => {
      const change = await this.changeFor(tx, t, action, opts.topicId);
      if (!change) return undefined;
      const changed = await applyChange(tx, t, change);
      const leaving = change.kind === 'topic' ? change.subscription === 'opt_out' : change.unsubscribed;
      const scope = change.kind === 'topic' ? ('topic' as const) : ('all' as const);
      if (changed && leaving) {
        await emailEventsInsert(tx, [
          makeEvent(t.email, 'email.unsubscribed', {
            recipient: t.address,
            detail: { scope, topic_id: change.kind === 'topic' ? change.topicId : null, via: opts.via },
          }),
        ]);
      }
      return { view: await this.viewOf(tx, t), changed, scope: leaving ? scope : null };
    });
  }

  private async changeFor(
    tx: Tx,
    t: Target,
    action: UnsubscribeAction,
    topicId: string | undefined,
  ): Promise<Change | undefined> {
    switch (action) {
      case 'one_click': {
        const topic = t.email.topic_id ? await topicFind(tx, t.email.team_id, t.email.topic_id) : undefined;
        return topic
          ? { kind: 'topic', topicId: topic.id, subscription: 'opt_out' }
          : { kind: 'global', unsubscribed: true };
      }
      case 'leave_all':
        return { kind: 'global', unsubscribed: true };
      case 'resubscribe':
        return { kind: 'global', unsubscribed: false };
      case 'leave_topic':
      case 'join_topic': {
        const listed = await topicListForPreferences(tx, t.email.team_id, null, t.email.topic_id);
        const topic = listed.find((x) => x.id === topicId?.toLowerCase());
        return (
          topic && { kind: 'topic', topicId: topic.id, subscription: action === 'leave_topic' ? 'opt_out' : 'opt_in' }
        );
      }
    }
  }
}

/** Makes the change unless it is already so; true when something changed (and its event was recorded). */
async function applyChange(tx: Tx, t: Target, change: Change): Promise<boolean> {
  const teamId = t.email.team_id;
  let c: ContactRow | undefined = await contactFind(tx, teamId, { email: t.address }, true);
  if (!c) {
    const topic = change.kind === 'topic' ? await topicFind(tx, teamId, change.topicId) : undefined;
    // An address that is no contact already receives opt_in topics and list mail; a departure is
    // always written down (explicitly, whatever the topic's default).
    const isDefault =
      change.kind === 'global'
        ? !change.unsubscribed
        : change.subscription === 'opt_in' && topic?.default_subscription === 'opt_in';
    if (isDefault) return false;
    const created = await contactInsert(tx, teamId, {
      email: t.address,
      first_name: null,
      last_name: null,
      unsubscribed: change.kind === 'global' && change.unsubscribed,
      properties: {},
    });
    if (created) {
      if (change.kind === 'topic')
        await contactTopicsSet(tx, created.id, [{ id: change.topicId, subscription: change.subscription }]);
      await recordEvent(tx, 'contact.created', created);
      return true;
    }
    c = await contactFind(tx, teamId, { email: t.address }, true); // created meanwhile by another request
    if (!c) return false;
  }
  if (change.kind === 'global') {
    if (c.unsubscribed === change.unsubscribed) return false;
    const updated = await contactUpdate(tx, teamId, c.id, {
      email: c.email,
      first_name: c.first_name,
      last_name: c.last_name,
      unsubscribed: change.unsubscribed,
      properties: c.properties,
    });
    await recordEvent(tx, 'contact.updated', updated);
    return true;
  }
  const current = (await topicListForPreferences(tx, teamId, c.id, change.topicId)).find(
    (x) => x.id === change.topicId,
  )?.subscription;
  if (current === change.subscription) return false;
  await contactTopicsSet(tx, c.id, [{ id: change.topicId, subscription: change.subscription }]);
  await recordEvent(tx, 'contact.updated', c);
  return true;
}
