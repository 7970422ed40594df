// An inbox's labels (/inboxes/:inbox/labels): a name (unique in the inbox, case-insensitive) and a
// `#RRGGBB` colour; at most MAX_LABELS an inbox. Removing a label takes it off every thread.
import { AppError, invalidField, missingField, notFound } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { UNSAFE_HEADER_CHARS } from '../mime/addresses.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import { labelCount, labelDelete, labelInsert, labelList, labelUpdate, type LabelRow } from '../store/inboxes.js';
import { inboxOf, iso } from './inboxes.js';

const MAX_LABELS = 100;
const MAX_LABEL_NAME = 64;
const COLOR = /^#[0-9A-Fa-f]{6}$/;
const DEFAULT_COLOR = '#6B7280';

const view = (l: LabelRow) => ({ id: l.id, name: l.name, color: l.color, created_at: iso(l.created_at)! });

function nameOf(v: unknown, required: boolean): string | undefined {
  if (v === undefined || v === null) {
    if (required) throw missingField('name');
    return undefined;
  }
  if (typeof v !== 'string' || !v.trim()) throw invalidField('name', 'must be a non-empty string.');
  if (v.length > MAX_LABEL_NAME) throw invalidField('name', `must be at most ${MAX_LABEL_NAME} characters.`);
  if (UNSAFE_HEADER_CHARS.test(v)) throw invalidField('name', 'must not contain line breaks or control characters.');
  return v.trim();
}

function colorOf(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || !COLOR.test(v)) throw invalidField('color', 'must be a colour in the #RRGGBB format.');
  return v.toUpperCase();
}

const taken = (name: string) =>
  new AppError('validation_error', `A label named ${JSON.stringify(name)} already exists.`);

export async function labelCreate(pool: Pool, teamId: string, inboxRef: string, body: Record<string, unknown>) {
  const name = nameOf(body.name, true)!;
  const color = colorOf(body.color) ?? DEFAULT_COLOR;
  return withTx(pool, async (tx) => {
    const inbox = await inboxOf(tx, teamId, inboxRef);
    if ((await labelCount(tx, inbox.id)) >= MAX_LABELS)
      throw new AppError('validation_error', `An inbox can have at most ${MAX_LABELS} labels.`);
    const l = await labelInsert(tx, teamId, inbox.id, name, color);
    if (!l) throw taken(name);
    return { object: 'inbox_label' as const, id: l.id };
  });
}

export async function labelsList(db: Queryable, teamId: string, inboxRef: string) {
  const inbox = await inboxOf(db, teamId, inboxRef);
  return { object: 'list' as const, data: (await labelList(db, inbox.id)).map(view) };
}

export async function labelChange(
  pool: Pool,
  teamId: string,
  inboxRef: string,
  id: string,
  body: Record<string, unknown>,
) {
  const name = nameOf(body.name, false);
  const color = colorOf(body.color);
  if (name === undefined && color === undefined)
    throw new AppError('validation_error', 'Give at least one of `name` and `color`.');
  const inbox = await inboxOf(pool, teamId, inboxRef);
  const l = isUuid(id) ? await labelUpdate(pool, inbox.id, id.toLowerCase(), { name, color }) : undefined;
  if (l === null) throw taken(name!);
  if (!l) throw notFound('Label');
  return { object: 'inbox_label' as const, id: l.id };
}

export async function labelRemove(pool: Pool, teamId: string, inboxRef: string, id: string) {
  const inbox = await inboxOf(pool, teamId, inboxRef);
  if (!(isUuid(id) && (await labelDelete(pool, inbox.id, id.toLowerCase())))) throw notFound('Label');
  return { object: 'inbox_label' as const, id: id.toLowerCase(), deleted: true };
}
