// The inbox agent's settings (/inboxes/:inbox/agent, the SDK's `inboxes.agent.get/update`):
// instructions (4,000 characters), a tone and the actions it may take. `model_configured` (a
// Mailroom extension) says whether the operator configured a model; without one nothing runs.
import { AppError, invalidField } from '../errors.js';
import type { Pool, Queryable } from '../store/db.js';
import { agentFind, agentUpsert } from '../store/inbox-agents.js';
import { inboxOf } from './inboxes.js';

export const AGENT_ACTIONS = [
  'draft_reply',
  'forward_thread',
  'add_labels',
  'assign_thread',
  'mark_as_spam',
  'archive',
  'move_to_trash',
] as const;
export type AgentAction = (typeof AGENT_ACTIONS)[number];
export const AGENT_TONES = ['concise_professional', 'concise_casual', 'expanded_professional', 'expanded_casual'];
export const MAX_INSTRUCTIONS = 4000;
/** A run's model call: the first try and three retries with the queue's backoff, then given up (logged). */
export const AGENT_MAX_ATTEMPTS = 4;

export interface AgentSettings {
  instructions: string | null;
  tone: string | null;
  actions: AgentAction[];
}

/** The stored settings of an inbox (none stored: no instructions, no tone, no action). */
export async function agentSettingsOf(db: Queryable, teamId: string, inboxId: string): Promise<AgentSettings> {
  const row = await agentFind(db, teamId, inboxId);
  return {
    instructions: row?.instructions ?? null,
    tone: row?.tone ?? null,
    actions: (row?.actions ?? []).filter((a): a is AgentAction => (AGENT_ACTIONS as readonly string[]).includes(a)),
  };
}

export async function agentGet(db: Queryable, teamId: string, inboxRef: string, modelConfigured: boolean) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  return {
    object: 'inbox_agent' as const,
    ...(await agentSettingsOf(db, teamId, inbox.id)),
    model_configured: modelConfigured,
  };
}

function instructionsOf(v: unknown): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string') throw invalidField('instructions', 'must be a string or null.');
  if (v.length > MAX_INSTRUCTIONS)
    throw invalidField('instructions', `must be at most ${MAX_INSTRUCTIONS} characters.`);
  return v.trim() || null;
}

function toneOf(v: unknown): string | null | undefined {
  if (v === undefined || v === null) return v;
  if (typeof v !== 'string' || !AGENT_TONES.includes(v))
    throw invalidField('tone', `must be one of ${AGENT_TONES.join(', ')}, or null.`);
  return v;
}

function actionsOf(v: unknown): AgentAction[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.length > AGENT_ACTIONS.length * 2)
    throw invalidField('actions', `must be an array of ${AGENT_ACTIONS.join(', ')}.`);
  for (const a of v)
    if (!(AGENT_ACTIONS as readonly unknown[]).includes(a))
      throw invalidField('actions', `must hold only ${AGENT_ACTIONS.join(', ')}.`);
  return [...new Set(v as AgentAction[])];
}

export async function agentChange(pool: Pool, teamId: string, inboxRef: string, body: Record<string, unknown>) {
  const known = ['instructions', 'tone', 'actions'];
  const unknown = Object.keys(body).find((k) => !known.includes(k));
  if (unknown) throw invalidField(unknown, 'is not a setting of the inbox agent.');
  const f = {
    instructions: instructionsOf(body.instructions),
    tone: toneOf(body.tone),
    actions: actionsOf(body.actions),
  };
  if (f.instructions === undefined && f.tone === undefined && f.actions === undefined)
    throw new AppError('validation_error', 'Give at least one of `instructions`, `tone` and `actions`.');
  const inbox = await inboxOf(pool, teamId, inboxRef);
  await agentUpsert(pool, teamId, inbox.id, f);
  return { object: 'inbox_agent' as const, id: inbox.id };
}
