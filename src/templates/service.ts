// Templates (/templates, resend-compat 7.6): create, read, list, edit, publish, duplicate, delete,
// and the version history (a Mailroom addition). Every route takes the id or the alias. GET shows
// the working copy (the newest version); sends use the published one (render.ts).
import { invalidField, notFound } from '../errors.js';
import { shown } from '../mime/addresses.js';
import { isUuid } from '../lib/ids.js';
import { withTx, type Pool, type Queryable } from '../store/db.js';
import type { PageQuery } from '../store/paginate.js';
import {
  templateDelete,
  templateFindByRef,
  templateInsert,
  templateList,
  templatePublishLatest,
  templateUpdateMeta,
  templateVersionAppend,
  templateVersionFind,
  templateVersionList,
  type TemplateContent,
  type TemplateVersionRow,
  type TemplateWithLatest,
} from '../store/templates.js';
import { aliasOf, bodyOf, fromOf, nameOf, replyToOf, subjectOf, variablesOf } from './input.js';
import { compileVersion, renderVersion } from './render.js';
import { htmlToText } from '../mime/html-to-text.js';
import { documentInput } from './document-input.js';

type Body = Record<string, unknown>;
const ok = (id: string) => ({ object: 'template' as const, id });
/** JSON with object keys sorted: a document read back from jsonb has its keys in jsonb's order, not the editor's. */
const canonical = (v: unknown) =>
  JSON.stringify(v, (_k, x) =>
    x && typeof x === 'object' && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : 1)))
      : x,
  );
const pgNow = () => new Date().toISOString().replace('T', ' ').replace('Z', '+00');

/** The wire shape of GET /templates/:id (key order as Resend's). */
function view(t: TemplateWithLatest) {
  const v = t.latest;
  return {
    object: 'template' as const,
    id: t.id,
    current_version_id: t.published_version_id ?? t.latest_version_id,
    alias: t.alias,
    name: t.name,
    created_at: t.created_at,
    updated_at: t.updated_at,
    status: t.published_version_id ? ('published' as const) : ('draft' as const),
    published_at: t.published_at,
    from: v.from_addr,
    subject: v.subject,
    reply_to: v.reply_to,
    html: v.html,
    text: v.text_body,
    variables: v.variables,
    has_unpublished_versions: t.latest_version_id !== t.published_version_id,
    document: v.document ?? null, // Mailroom: the visual editor's document (null: raw HTML)
  };
}

function versionView(v: TemplateVersionRow, t: TemplateWithLatest) {
  return {
    object: 'template_version' as const,
    id: v.id,
    number: v.number,
    published: v.id === t.published_version_id,
    published_at: v.published_at,
    created_at: v.created_at,
    from: v.from_addr,
    subject: v.subject,
    reply_to: v.reply_to,
    html: v.html,
    text: v.text_body,
    variables: v.variables,
    document: v.document ?? null,
  };
}

const aliasTaken = (alias: string) =>
  invalidField('alias', `${shown(alias)} is already the alias of another template.`);

async function find(db: Queryable, teamId: string, ref: string, lock = false): Promise<TemplateWithLatest> {
  const byId = isUuid(ref);
  const t = ref ? await templateFindByRef(db, teamId, byId ? ref.toLowerCase() : ref, byId, lock) : undefined;
  if (!t) throw notFound('Template');
  return t;
}

export async function templateCreate(pool: Pool, teamId: string, body: Body) {
  const name = nameOf(body.name, true)!;
  const alias = aliasOf(body.alias) ?? null;
  const doc = await documentInput(body);
  const text = bodyOf('text', body.text, false) ?? null;
  const content: TemplateContent = {
    html: doc ? doc.html : bodyOf('html', body.html, true)!,
    text_body: text ?? doc?.text ?? null,
    from_addr: fromOf(body.from) ?? null,
    subject: subjectOf(body.subject) ?? null,
    reply_to: replyToOf(body.reply_to) ?? null,
    variables: variablesOf(body.variables, [], pgNow()) ?? [],
    document: doc?.document ?? null,
  };
  const t = await templateInsert(pool, teamId, { name, alias }, content);
  if (!t) throw aliasTaken(alias!);
  return ok(t.id);
}

export const templateGet = async (db: Queryable, teamId: string, ref: string) => view(await find(db, teamId, ref));

export async function templatesList(db: Queryable, teamId: string, page: PageQuery, search?: string) {
  const p = await templateList(db, teamId, page, search?.trim() || undefined);
  return { object: 'list' as const, has_more: p.has_more, data: p.data };
}

/** Name and alias change at once; a change of content writes a new draft version. */
export async function templateChange(pool: Pool, teamId: string, ref: string, body: Body) {
  const name = nameOf(body.name, false);
  const alias = aliasOf(body.alias);
  if (body.html === null || body.html === '') throw invalidField('html', 'a template must keep an HTML body.');
  const html = bodyOf('html', body.html, false) ?? undefined;
  const text = bodyOf('text', body.text, false);
  const from = fromOf(body.from);
  const subject = subjectOf(body.subject);
  const replyTo = replyToOf(body.reply_to);
  // Rendered before the transaction: the row lock is not held while the worker renders.
  const doc = await documentInput(body);
  return withTx(pool, async (tx) => {
    const t = await find(tx, teamId, ref, true);
    if ((name !== undefined || alias !== undefined) && !(await templateUpdateMeta(tx, teamId, t.id, { name, alias })))
      throw aliasTaken(alias!);
    const v = t.latest;
    const next: TemplateContent = {
      html: doc?.html ?? html ?? v.html,
      text_body: text !== undefined ? text : doc ? doc.text : v.text_body,
      from_addr: from === undefined ? v.from_addr : from,
      subject: subject === undefined ? v.subject : subject,
      reply_to: replyTo === undefined ? v.reply_to : replyTo,
      variables: variablesOf(body.variables, v.variables, pgNow()) ?? v.variables,
      // a new document replaces the old; html alone (raw HTML mode) or null drops it
      document: doc ? doc.document : doc === null || html !== undefined ? null : v.document,
    };
    const same = (Object.keys(next) as (keyof TemplateContent)[]).every((k) => canonical(next[k]) === canonical(v[k]));
    if (!same) await templateVersionAppend(tx, teamId, t.id, next);
    return ok(t.id);
  });
}

/** Sends use the working copy from now on; publishing an already published copy changes nothing. */
export async function templatePublish(pool: Pool, teamId: string, ref: string) {
  return withTx(pool, async (tx) => {
    const t = await find(tx, teamId, ref, true);
    if (t.published_version_id !== t.latest_version_id) await templatePublishLatest(tx, teamId, t.id);
    return ok(t.id);
  });
}

/** A new draft template with the working copy's content, named "<name> (copy)", without the alias. */
export async function templateDuplicate(pool: Pool, teamId: string, ref: string) {
  const t = await find(pool, teamId, ref);
  const v = t.latest;
  const now = pgNow();
  const copy = await templateInsert(
    pool,
    teamId,
    { name: `${t.name} (copy)`.slice(0, 256), alias: null },
    {
      html: v.html,
      text_body: v.text_body,
      from_addr: v.from_addr,
      subject: v.subject,
      reply_to: v.reply_to,
      variables: variablesOf(v.variables, [], now) ?? [],
      document: v.document,
    },
  );
  return ok(copy!.id);
}

export async function templateRemove(pool: Pool, teamId: string, ref: string) {
  const t = await find(pool, teamId, ref);
  if (!(await templateDelete(pool, teamId, t.id))) throw notFound('Template');
  return { object: 'template' as const, id: t.id, deleted: true };
}

/** The version history, newest first; `published` marks the version sends use. */
export async function templateVersions(db: Queryable, teamId: string, ref: string, page: PageQuery) {
  const t = await find(db, teamId, ref);
  const p = await templateVersionList(db, teamId, t.id, page);
  return { object: 'list' as const, has_more: p.has_more, data: p.data.map((v) => versionView(v, t)) };
}

export async function templateVersionGet(db: Queryable, teamId: string, ref: string, versionId: string) {
  const t = await find(db, teamId, ref);
  const v = isUuid(versionId) ? await templateVersionFind(db, teamId, t.id, versionId.toLowerCase()) : undefined;
  if (!v) throw notFound('Template version');
  return versionView(v, t);
}

/**
 * The working copy rendered with sample values (Mailroom, for editors): missing variables stay as
 * written. `draft` ({subject, html, text, variables}, checked as on PATCH) is laid over the working
 * copy without saving it, so that an editor previews what it types. Without a text part,
 * `generated_text` is the one a send derives from the html.
 */
export async function templatePreview(db: Queryable, teamId: string, ref: string, body: Body) {
  const t = await find(db, teamId, ref);
  let v = t.latest;
  if (body.draft !== undefined && body.draft !== null) {
    if (typeof body.draft !== 'object' || Array.isArray(body.draft))
      throw invalidField('draft', 'must be an object of unsaved {subject, html, text, variables}.');
    const d = body.draft as Body;
    if (d.html === null || d.html === '') throw invalidField('draft.html', 'a template must keep an HTML body.');
    const html = bodyOf('html', d.html, false) ?? undefined;
    const text = bodyOf('text', d.text, false);
    const subject = subjectOf(d.subject);
    v = {
      ...v,
      html: html ?? v.html,
      text_body: text === undefined ? v.text_body : text,
      subject: subject === undefined ? v.subject : subject,
      variables: variablesOf(d.variables, v.variables, pgNow()) ?? v.variables,
    };
  }
  const r = renderVersion(compileVersion(v), body.variables);
  return {
    object: 'template_preview' as const,
    id: t.id,
    version_id: t.latest.id,
    subject: r.subject,
    html: r.html,
    text: r.text,
    missing: r.missing,
    generated_text: r.text === null ? htmlToText(r.html) : null,
  };
}
