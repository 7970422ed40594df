// A template on a send (`template: {id | alias, variables}`): the team's template, its published
// version, the variables checked against it, and its subject, html and text rendered with the
// shared personalization renderer (HTML-escaped values in html). Published versions never
// change, so each is compiled once and kept by version id.
import { invalidField } from '../errors.js';
import { shown } from '../emails/addresses.js';
import { compile, render, variableSlots, type Compiled } from '../contacts/personalize.js';
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

interface CompiledVersion {
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

export class TemplateRenderer {
  private readonly compiled = new Map<string, CompiledVersion>();

  constructor(private readonly db: Queryable) {}

  private compiledOf(v: TemplateVersionRow): CompiledVersion {
    let c = this.compiled.get(v.id);
    if (c) return c;
    const subject = v.subject ? compile(v.subject, { html: false, variables: true }) : null;
    const html = compile(v.html, { html: true, variables: true });
    const text = v.text_body ? compile(v.text_body, { html: false, variables: true }) : null;
    const used = [subject, html, text].flatMap((x) => (x ? variableSlots(x) : []));
    const fallbacks = Object.fromEntries(v.variables.map((x) => [x.key, x.fallback_value]));
    const needed = [...new Set(used.filter((u) => !u.tagFallback).map((u) => u.key))];
    c = { subject, html, text, types: new Map(v.variables.map((x) => [x.key, x.type])), fallbacks, needed, version: v };
    if (this.compiled.size >= CACHE_MAX) this.compiled.clear();
    this.compiled.set(v.id, c);
    return c;
  }

  /** Renders the team's published template named by id or alias; 422s name the field. */
  async render(teamId: string, ref: string, variables: unknown): Promise<RenderedTemplate> {
    const given = sendVariablesOf(variables);
    const byId = isUuid(ref);
    const found = await templateFindPublished(this.db, teamId, byId ? ref.toLowerCase() : ref, byId);
    if (!found) throw invalidField('template.id', `no template has the id or alias ${shown(ref)}.`);
    if (!found.published) throw invalidField('template.id', `the template ${shown(ref)} has not been published; publish it (POST /templates/${found.id}/publish) before sending with it.`);
    const c = this.compiledOf(found.published);
    for (const [key, value] of Object.entries(given)) {
      if (c.types.get(key) !== 'number' || typeof value === 'number') continue;
      const n = value.trim() === '' ? NaN : Number(value);
      if (!Number.isFinite(n)) throw invalidField(`template.variables.${key}`, `must be a number (the variable's type), got ${shown(value)}.`);
      given[key] = n;
    }
    const missing = c.needed.filter((k) => given[k] === undefined && (c.fallbacks[k] === null || c.fallbacks[k] === undefined));
    if (missing.length) {
      throw invalidField('template.variables', `missing ${missing.map((k) => shown(k)).join(', ')}: the template uses ${missing.length > 1 ? 'them' : 'it'} and ${missing.length > 1 ? 'they have' : 'it has'} no fallback_value.`);
    }
    // A transactional send has no contact: contact tags get their written fallback, else nothing.
    const ctx = { contact: { email: '' }, variables: given, variableFallbacks: c.fallbacks };
    const v = c.version;
    return {
      templateId: found.id, from: v.from_addr, replyTo: v.reply_to,
      subject: c.subject ? render(c.subject, ctx) : null, html: render(c.html, ctx), text: c.text ? render(c.text, ctx) : null,
    };
  }
}
