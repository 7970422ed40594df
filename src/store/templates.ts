// Templates and their versions. Every query is keyed by the team; versions are inserted, never
// updated (publishing stamps published_at on the version it publishes).
import { uuid } from '../lib/ids.js';
import type { Queryable } from './db.js';
import { paginate, type Page, type PageQuery } from './paginate.js';

export interface TemplateVariableRow {
  id: string;
  key: string;
  type: 'string' | 'number';
  fallback_value: string | number | null;
  created_at: string;
  updated_at: string;
}

export interface TemplateContent {
  from_addr: string | null;
  subject: string | null;
  reply_to: string[] | null;
  html: string;
  text_body: string | null;
  variables: TemplateVariableRow[];
  /** the visual editor's document the html was rendered from (null: raw HTML); checked by templates/document.ts */
  document: object | null;
}

export interface TemplateVersionRow extends TemplateContent {
  id: string;
  template_id: string;
  number: number;
  published_at: string | null;
  created_at: string;
}

export interface TemplateRow {
  id: string;
  name: string;
  alias: string | null;
  latest_version_id: string;
  published_version_id: string | null;
  published_at: string | null;
  created_at: string;
  updated_at: string;
}

/** A template with its working copy (the newest version). */
export type TemplateWithLatest = TemplateRow & { latest: TemplateVersionRow };

const T_COLUMNS = `t.id, t.name, t.alias, t.latest_version_id, t.published_version_id, t.published_at::text AS published_at,
  t.created_at::text AS created_at, t.updated_at::text AS updated_at`;
const V_COLUMNS = `v.id, v.template_id, v.number, v.from_addr, v.subject, v.reply_to, v.html, v.text_body, v.variables, v.document,
  v.published_at::text AS published_at, v.created_at::text AS created_at`;
const LIST_COLUMNS = `id, name, CASE WHEN published_version_id IS NULL THEN 'draft' ELSE 'published' END AS status,
  published_at::text AS published_at, created_at::text AS created_at, updated_at::text AS updated_at, alias`;

/** `ref` is an id (when `byId`) or an alias. */
const REF_CONDITION = (byId: boolean) => (byId ? 't.id = $2::uuid' : 't.alias = $2');

async function versionInsert(
  db: Queryable,
  teamId: string,
  templateId: string,
  number: number,
  c: TemplateContent,
): Promise<TemplateVersionRow> {
  const { rows } = await db.query<TemplateVersionRow>(
    `INSERT INTO template_versions AS v (id, team_id, template_id, number, from_addr, subject, reply_to, html, text_body, variables, document)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING ${V_COLUMNS}`,
    [
      uuid(),
      teamId,
      templateId,
      number,
      c.from_addr,
      c.subject,
      c.reply_to,
      c.html,
      c.text_body,
      JSON.stringify(c.variables),
      c.document === null ? null : JSON.stringify(c.document),
    ],
  );
  return rows[0];
}

/** Inserts a template and its first version; undefined when the alias is taken. */
export async function templateInsert(
  db: Queryable,
  teamId: string,
  t: { name: string; alias: string | null },
  content: TemplateContent,
): Promise<TemplateWithLatest | undefined> {
  const id = uuid();
  const versionId = uuid();
  // One statement: the alias conflict leaves nothing behind, and the version exists with its template.
  const { rows } = await db.query<TemplateRow>(
    `WITH t AS (
       INSERT INTO templates (id, team_id, name, alias, latest_version_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (team_id, alias) WHERE alias IS NOT NULL DO NOTHING RETURNING *
     ), v AS (
       INSERT INTO template_versions (id, team_id, template_id, number, from_addr, subject, reply_to, html, text_body, variables, document)
       SELECT $5, $2, t.id, 1, $6, $7, $8, $9, $10, $11, $12 FROM t RETURNING id
     )
     SELECT ${T_COLUMNS} FROM t`,
    [
      id,
      teamId,
      t.name,
      t.alias,
      versionId,
      content.from_addr,
      content.subject,
      content.reply_to,
      content.html,
      content.text_body,
      JSON.stringify(content.variables),
      content.document === null ? null : JSON.stringify(content.document),
    ],
  );
  if (!rows[0]) return undefined;
  const latest = await templateVersionFind(db, teamId, id, versionId);
  return { ...rows[0], latest: latest! };
}

/** The team's template by id or alias, with its working copy; `lock` takes a row lock for an edit. */
export async function templateFindByRef(
  db: Queryable,
  teamId: string,
  ref: string,
  byId: boolean,
  lock = false,
): Promise<TemplateWithLatest | undefined> {
  const { rows } = await db.query<TemplateRow & { latest: TemplateVersionRow }>(
    `SELECT ${T_COLUMNS}, (SELECT row_to_json(x) FROM (SELECT ${V_COLUMNS} FROM template_versions v WHERE v.id = t.latest_version_id) x) AS latest
     FROM templates t WHERE t.team_id = $1 AND ${REF_CONDITION(byId)}${lock ? ' FOR UPDATE' : ''}`,
    [teamId, ref],
  );
  return rows[0];
}

/** What a send needs: the template's id and its published version (undefined: no such template). */
export async function templateFindPublished(
  db: Queryable,
  teamId: string,
  ref: string,
  byId: boolean,
): Promise<{ id: string; published: TemplateVersionRow | null } | undefined> {
  const { rows } = await db.query<{ id: string; published: TemplateVersionRow | null }>(
    `SELECT t.id, (SELECT row_to_json(x) FROM (SELECT ${V_COLUMNS} FROM template_versions v WHERE v.id = t.published_version_id) x) AS published
     FROM templates t WHERE t.team_id = $1 AND ${REF_CONDITION(byId)}`,
    [teamId, ref],
  );
  return rows[0];
}

/** Name and alias (template-level, effective at once); undefined when the alias is taken. */
export async function templateUpdateMeta(
  db: Queryable,
  teamId: string,
  id: string,
  p: { name?: string; alias?: string | null },
): Promise<boolean> {
  try {
    await db.query(
      `UPDATE templates SET name = coalesce($3, name), alias = CASE WHEN $4::boolean THEN $5 ELSE alias END, updated_at = now()
       WHERE team_id = $1 AND id = $2`,
      [teamId, id, p.name ?? null, p.alias !== undefined, p.alias ?? null],
    );
    return true;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return false; // the alias belongs to another template
    throw err;
  }
}

/** Writes a new working copy (the next version number) and points the template at it. */
export async function templateVersionAppend(
  db: Queryable,
  teamId: string,
  templateId: string,
  content: TemplateContent,
): Promise<TemplateVersionRow> {
  const { rows } = await db.query<{ n: number }>(
    'SELECT coalesce(max(number), 0) + 1 AS n FROM template_versions WHERE template_id = $1',
    [templateId],
  );
  const v = await versionInsert(db, teamId, templateId, rows[0].n, content);
  await db.query('UPDATE templates SET latest_version_id = $3, updated_at = now() WHERE team_id = $1 AND id = $2', [
    teamId,
    templateId,
    v.id,
  ]);
  return v;
}

/** Publishes the working copy: sends use it from now on. */
export async function templatePublishLatest(db: Queryable, teamId: string, templateId: string): Promise<void> {
  await db.query(
    `WITH t AS (
       UPDATE templates SET published_version_id = latest_version_id, published_at = now(), updated_at = now()
       WHERE team_id = $1 AND id = $2 RETURNING latest_version_id
     )
     UPDATE template_versions SET published_at = now() WHERE id = (SELECT latest_version_id FROM t)`,
    [teamId, templateId],
  );
}

export async function templateDelete(db: Queryable, teamId: string, id: string): Promise<boolean> {
  const { rowCount } = await db.query('DELETE FROM templates WHERE team_id = $1 AND id = $2', [teamId, id]);
  return Boolean(rowCount);
}

export interface TemplateListRow {
  id: string;
  name: string;
  status: 'draft' | 'published';
  published_at: string | null;
  created_at: string;
  updated_at: string;
  alias: string | null;
}

/** A page of the team's templates; `search` keeps those whose name or alias contains it (any case). */
export function templateList(
  db: Queryable,
  teamId: string,
  page: PageQuery,
  search?: string,
): Promise<Page<TemplateListRow>> {
  // position() rather than ILIKE: the words typed are matched as they are, no wildcard to escape.
  const where = search
    ? "position(lower($1) in lower(name)) > 0 OR position(lower($1) in lower(coalesce(alias, ''))) > 0"
    : undefined;
  return paginate<TemplateListRow>(db, {
    table: 'templates',
    columns: LIST_COLUMNS,
    teamId,
    page,
    where,
    params: search ? [search] : [],
  });
}

export async function templateVersionFind(
  db: Queryable,
  teamId: string,
  templateId: string,
  versionId: string,
): Promise<TemplateVersionRow | undefined> {
  const { rows } = await db.query<TemplateVersionRow>(
    `SELECT ${V_COLUMNS} FROM template_versions v WHERE v.team_id = $1 AND v.template_id = $2 AND v.id = $3`,
    [teamId, templateId, versionId],
  );
  return rows[0];
}

export function templateVersionList(
  db: Queryable,
  teamId: string,
  templateId: string,
  page: PageQuery,
): Promise<Page<TemplateVersionRow>> {
  return paginate<TemplateVersionRow>(db, {
    table: 'template_versions',
    columns:
      'id, template_id, number, from_addr, subject, reply_to, html, text_body, variables, document, published_at::text AS published_at, created_at::text AS created_at',
    teamId,
    page,
    where: 'template_id = $1',
    params: [templateId],
  });
}
