// A template on a send (`template: {id | alias, variables}`): the team's template, its published
// version, the variables checked against it, and its subject, html and text rendered with the
// shared personalization renderer (HTML-escaped values in html). Published versions never
// change, so each is compiled once and kept by version id.
import { invalidField } from '../errors.js';
import { shown } from '../mime/addresses.js';
import { compile, render, variableSlots, type Compiled } from '../render/personalize.js';
import { isUuid } from '../lib/ids.js';
import type { Queryable } from '../store/db.js';
import { templateFindPublished, type TemplateVersionRow } from '../store/templates.js';
import { sendVariablesOf } from './input.js';

export interface RenderedTemplate {
  templateId: string;
  from: string | null;
  subject: string | null;
  replyTo: string[] | null;
  html: string;
  text: string | null;
}

export interface CompiledVersion {
  subject: Compiled | null;
  html: Compiled;
  text: Compiled | null;
  types: Map<string, 'string' | 'number'>;
  fallbacks: Record<string, string | number | null>;
  /** keys used without a tag fallback: each needs a value or a declared fallback_value */
  needed: string[];
  version: TemplateVersionRow;
}

const CACHE_MAX = 1000;

/** Compiles a version's subject, html and text once (versions never change). */
export function compileVersion(v: TemplateVersionRow): CompiledVersion {
  const subject = v.subject ? compile(v.subject, { html: false, variables: true }) : null;
  const html = compile(v.html, { html: true, variables: true });
  const text = v.text_body ? compile(v.text_body, { html: false, variables: true }) : null;
  const used = [subject, html, text].flatMap((x) => (x ? variableSlots(x) : []));
  const fallbacks = Object.fromEntries(v.variables.map((x) => [x.key, x.fallback_value]));
  const needed = [...new Set(used.filter((u) => !u.tagFallback).map((u) => u.key))];
  return {
    subject,
    html,
    text,
    types: new Map(v.variables.map((x) => [x.key, x.type])),
    fallbacks,
    needed,
    version: v,
  };
}

/**
 * Checks the send's values against the version (a number variable takes a number or a numeric
 * string) and renders it. `missing` lists the variables used with no value and no fallback: a
 * send refuses them; a preview shows them as written.
 */
export function renderVersion(
  c: CompiledVersion,
  variables: unknown,
): { subject: string | null; html: string; text: string | null; missing: string[] } {
  const given = sendVariablesOf(variables);
  for (const [key, value] of Object.entries(given)) {
    if (c.types.get(key) !== 'number' || typeof value === 'number') continue;
    const n = value.trim() === '' ? NaN : Number(value);
    if (!Number.isFinite(n))
      throw invalidField(`template.variables.${key}`, `must be a number (the variable's type), got ${shown(value)}.`);
    given[key] = n;
  }
  const missing = c.needed.filter(
    (k) => given[k] === undefined && (c.fallbacks[k] === null || c.fallbacks[k] === undefined),
  );
  const values: Record<string, string | number> = { ...given };
  for (const k of missing) values[k] = `{{{${k}}}}`;
  // A transactional send has no contact: contact tags get their written fallback, else nothing.
  const ctx = { contact: { email: '' }, variables: values, variableFallbacks: c.fallbacks };
  return {
    subject: c.subject ? render(c.subject, ctx) : null,
    html: render(c.html, ctx),
    text: c.text ? render(c.text, ctx) : null,
    missing,
  };
}

export class TemplateRenderer {
  private readonly compiled = new Map<string, CompiledVersion>();

  constructor(private readonly db: Queryable) {}

  private compiledOf(v: TemplateVersionRow): CompiledVersion {
    let c = this.compiled.get(v.id);
    if (c) return c;
    c = compileVersion(v);
    if (this.compiled.size >= CACHE_MAX) this.compiled.clear();
    this.compiled.set(v.id, c);
    return c;
  }

  /** Renders the team's published template named by id or alias; 422s name the field. */
  async render(teamId: string, ref: string, variables: unknown): Promise<RenderedTemplate> {
    if (typeof variables === 'object' && variables !== null) sendVariablesOf(variables); // a bad value is named before a lookup
    const byId = isUuid(ref);
    const found = await templateFindPublished(this.db, teamId, byId ? ref.toLowerCase() : ref, byId);
    if (!found) throw invalidField('template.id', `no template has the id or alias ${shown(ref)}.`);
    if (!found.published)
      throw invalidField(
        'template.id',
        `the template ${shown(ref)} has not been published; publish it (POST /templates/${found.id}/publish) before sending with it.`,
      );
    const c = this.compiledOf(found.published);
    const r = renderVersion(c, variables);
    if (r.missing.length) {
      const n = r.missing.length;
      throw invalidField(
        'template.variables',
        `missing ${r.missing.map((k) => shown(k)).join(', ')}: the template uses ${n > 1 ? 'them' : 'it'} and ${n > 1 ? 'they have' : 'it has'} no fallback_value.`,
      );
    }
    const v = c.version;
    return {
      templateId: found.id,
      from: v.from_addr,
      replyTo: v.reply_to,
      subject: r.subject,
      html: r.html,
      text: r.text,
    };
  }
}
