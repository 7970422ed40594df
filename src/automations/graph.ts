// An automation's graph as saved (resend-compat 8.3): step and connection shapes, natural durations,
// the condition rule tree, and the whole-graph checks (one trigger, every step reachable, no dangling
// or cyclic connection, complete branches). Pure; every 422 names the step or connection at fault.
import { invalidField, missingField } from '../errors.js';
import { OPS, type Rule } from '../lib/filter-rule.js';
import { jsonBoundsExceeded, type JsonBounds } from '../lib/json-bounds.js';
import { isReservedEventName, isSystemEvent, SYSTEM_EVENTS } from '../custom-events/system.js';

export const STEP_TYPES = [
  'trigger',
  'send_email',
  'delay',
  'wait_for_event',
  'condition',
  'contact_update',
  'contact_delete',
  'add_to_segment',
] as const;
export type StepType = (typeof STEP_TYPES)[number];
export const CONNECTION_TYPES = ['default', 'condition_met', 'condition_not_met', 'timeout', 'event_received'] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];
export interface Step {
  key: string;
  type: StepType;
  config: Record<string, any>;
}
export interface Connection {
  from: string;
  to: string;
  type: ConnectionType;
}
export interface Graph {
  steps: Step[];
  connections: Connection[];
  triggerEvent: string;
  /** the system events (`resend:...`) the trigger or a wait names: what the database must record for it */
  listens: string[];
  /** the events its wait_for_event steps wait for: an event of one of these names is queued for the runs */
  waits: string[];
}

const MAX_STEPS = 150;
/** steps and connections are stored as given (a step's config may hold extra keys): 150 steps of a few KB each fit. */
const GRAPH_BOUNDS: JsonBounds = { depth: 32, bytes: 512 * 1024 };
const MAX_DURATION_MS = 30 * 86_400_000;
const UNITS: Record<string, number> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 7 * 86_400_000,
};
const isObj = (v: unknown): v is Record<string, any> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** "30 minutes", "1 day", "2 hours" → milliseconds (at most 30 days), or a 422 naming `path`. */
export function durationMs(v: unknown, path: string): number {
  const m = typeof v === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(second|minute|hour|day|week)s?\s*$/i.exec(v) : null;
  if (!m) throw invalidField(path, 'must be a duration such as "30 minutes", "2 hours" or "3 days".');
  const ms = Number(m[1]) * UNITS[m[2].toLowerCase()];
  if (ms <= 0 || ms > MAX_DURATION_MS) throw invalidField(path, 'must be more than 0 and at most 30 days.');
  return ms;
}

const eventName = (v: unknown, path: string): string => {
  if (typeof v !== 'string' || !v.trim()) throw missingField(path);
  if (v.length > 200) throw invalidField(path, 'must be at most 200 characters.');
  if (isReservedEventName(v.toLowerCase()) && !isSystemEvent(v))
    throw invalidField(
      path,
      `names starting with \`resend:\` are Mailroom's own events: one of ${SYSTEM_EVENTS.join(', ')}.`,
    );
  return v;
};

/** An SDK ConditionRule (`type: rule|and|or`, field `event.x` or `contact.x`) → the evaluator's Rule. */
export function conditionRule(raw: unknown, path: string, depth = 0): Rule {
  if (!isObj(raw)) throw invalidField(path, 'must be a rule object {type: "rule"|"and"|"or", ...}.');
  if (depth > 6) throw invalidField(path, 'nests too deep (at most 6 levels).');
  if (raw.type === 'and' || raw.type === 'or') {
    if (!Array.isArray(raw.rules) || !raw.rules.length)
      throw invalidField(`${path}.rules`, 'must be a non-empty array of rules.');
    const rules = raw.rules.map((r: unknown, i: number) => conditionRule(r, `${path}.rules[${i}]`, depth + 1));
    return raw.type === 'and' ? { and: rules } : { or: rules };
  }
  if (raw.type !== 'rule') throw invalidField(`${path}.type`, 'must be "rule", "and" or "or".');
  if (typeof raw.field !== 'string' || !/^(event|contact)\.[A-Za-z0-9_.-]+$/.test(raw.field)) {
    throw invalidField(`${path}.field`, "must name `event.<key>` (the trigger event's payload) or `contact.<key>`.");
  }
  const op = raw.operator;
  if (!OPS.includes(op) || op === 'in')
    throw invalidField(`${path}.operator`, `must be one of ${OPS.filter((o) => o !== 'in').join(', ')}.`);
  if (op === 'exists' || op === 'is_empty') return { field: raw.field, op };
  const v = raw.value;
  if (['gt', 'gte', 'lt', 'lte'].includes(op) && typeof v !== 'number')
    throw invalidField(`${path}.value`, `must be a number for ${op}.`);
  if (['contains', 'starts_with', 'ends_with'].includes(op) && typeof v !== 'string')
    throw invalidField(`${path}.value`, `must be a string for ${op}.`);
  if (!['string', 'number', 'boolean'].includes(typeof v) && v !== null)
    throw invalidField(`${path}.value`, 'must be a string, number, boolean or null.');
  return { field: raw.field, op, value: v as string };
}

/** A template variable value: a literal, or {var: "event.x" | "contact.x"}. */
function checkVars(vars: unknown, path: string): void {
  if (vars === undefined || vars === null) return;
  if (!isObj(vars)) throw invalidField(path, 'must be an object of variable values.');
  for (const [k, v] of Object.entries(vars)) {
    if (isObj(v) && 'var' in v && (typeof v.var !== 'string' || !/^(event|contact)\.[A-Za-z0-9_.-]+$/.test(v.var))) {
      throw invalidField(`${path}.${k}.var`, 'must be "event.<key>" or "contact.<key>".');
    }
  }
}

function checkStep(s: Step, at: string): void {
  const c = s.config;
  switch (s.type) {
    case 'trigger':
      eventName(c.event_name, `${at}.config.event_name`);
      break;
    case 'delay':
      durationMs(c.duration, `${at}.config.duration`);
      break;
    case 'wait_for_event':
      eventName(c.event_name, `${at}.config.event_name`);
      if (c.timeout !== undefined && c.timeout !== null) durationMs(c.timeout, `${at}.config.timeout`);
      if (c.filter_rule !== undefined && c.filter_rule !== null)
        conditionRule(c.filter_rule, `${at}.config.filter_rule`);
      break;
    case 'condition':
      conditionRule(c, `${at}.config`);
      break;
    case 'send_email':
      if (!isObj(c.template) || typeof c.template.id !== 'string' || !c.template.id)
        throw missingField(`${at}.config.template.id`);
      checkVars(c.template.variables, `${at}.config.template.variables`);
      break;
    case 'add_to_segment':
      if (typeof c.segment_id !== 'string' || !c.segment_id) throw missingField(`${at}.config.segment_id`);
      break;
    case 'contact_update':
      for (const f of ['first_name', 'last_name'])
        if (c[f] !== undefined && c[f] !== null && typeof c[f] !== 'string' && !isObj(c[f]))
          throw invalidField(`${at}.config.${f}`, 'must be a string, null or {var}.');
      if (c.properties !== undefined && !isObj(c.properties))
        throw invalidField(`${at}.config.properties`, 'must be an object.');
      break;
    case 'contact_delete':
      break;
  }
}

/** Parses and checks a whole graph; the 422s name the step (`steps[i] (key "x")`) or connection. */
export function graphOf(rawSteps: unknown, rawConnections: unknown): Graph {
  for (const [field, raw] of [
    ['steps', rawSteps],
    ['connections', rawConnections],
  ] as const) {
    const excess = jsonBoundsExceeded(raw, GRAPH_BOUNDS);
    if (excess) throw invalidField(field, excess);
  }
  if (!Array.isArray(rawSteps) || rawSteps.length < 1 || rawSteps.length > MAX_STEPS)
    throw invalidField('steps', `must be an array of 1 to ${MAX_STEPS} steps.`);
  if (!Array.isArray(rawConnections)) throw invalidField('connections', 'must be an array of {from, to, type?}.');
  const steps: Step[] = [];
  const byKey = new Map<string, Step>();
  rawSteps.forEach((raw, i) => {
    if (!isObj(raw)) throw invalidField(`steps[${i}]`, 'must be {key, type, config}.');
    if (typeof raw.key !== 'string' || !raw.key || raw.key.length > 100)
      throw invalidField(`steps[${i}].key`, 'must be a string of 1 to 100 characters.');
    const at = `steps[${i}] (key "${raw.key}")`;
    if (byKey.has(raw.key)) throw invalidField(at, `the key "${raw.key}" is used by two steps.`);
    if (!STEP_TYPES.includes(raw.type)) throw invalidField(`${at}.type`, `must be one of ${STEP_TYPES.join(', ')}.`);
    const step: Step = { key: raw.key, type: raw.type, config: isObj(raw.config) ? raw.config : {} };
    checkStep(step, at);
    steps.push(step);
    byKey.set(step.key, step);
  });
  const triggers = steps.filter((s) => s.type === 'trigger');
  if (triggers.length !== 1)
    throw invalidField('steps', `must have exactly one trigger step (found ${triggers.length}).`);
  const connections: Connection[] = rawConnections.map((raw, i) => {
    if (!isObj(raw)) throw invalidField(`connections[${i}]`, 'must be {from, to, type?}.');
    const type = raw.type ?? 'default';
    if (!CONNECTION_TYPES.includes(type))
      throw invalidField(`connections[${i}].type`, `must be one of ${CONNECTION_TYPES.join(', ')}.`);
    for (const end of ['from', 'to'] as const) {
      if (!byKey.has(raw[end]))
        throw invalidField(
          `connections[${i}].${end}`,
          `no step has the key "${String(raw[end]).slice(0, 100)}" (a dangling connection).`,
        );
    }
    const from = byKey.get(raw.from)!;
    if (raw.to === triggers[0].key)
      throw invalidField(`connections[${i}].to`, 'nothing may connect to the trigger step.');
    const allowed: Record<StepType, ConnectionType[]> = {
      condition: ['condition_met', 'condition_not_met'],
      wait_for_event: ['event_received', 'timeout'],
      trigger: ['default'],
      send_email: ['default'],
      delay: ['default'],
      contact_update: ['default'],
      contact_delete: ['default'],
      add_to_segment: ['default'],
    };
    const ok = from.type === 'wait_for_event' ? [...allowed.wait_for_event, 'default'] : allowed[from.type];
    if (!ok.includes(type))
      throw invalidField(
        `connections[${i}].type`,
        `a connection from the ${from.type} step "${from.key}" must be ${ok.join(' or ')}.`,
      );
    return { from: raw.from, to: raw.to, type };
  });
  for (const s of steps) {
    const out = connections.filter((c) => c.from === s.key);
    // A condition's branch with no connection ends the run there, as any step with nothing after it
    // does (run.ts: no following step → the run ends); the builder draws it so ("the run ends here").
    if (s.type === 'wait_for_event' && s.config.timeout && out.length && !out.some((c) => c.type === 'timeout')) {
      throw invalidField(`step "${s.key}"`, 'the wait has a timeout but no timeout connection.');
    }
  }
  // Reachability from the trigger, and no cycles (a run takes each step at most once).
  const seen = new Set<string>();
  const visiting = new Set<string>();
  const walk = (k: string) => {
    if (visiting.has(k)) throw invalidField(`step "${k}"`, 'is part of a cycle; a run takes each step at most once.');
    if (seen.has(k)) return;
    visiting.add(k);
    for (const c of connections) if (c.from === k) walk(c.to);
    visiting.delete(k);
    seen.add(k);
  };
  walk(triggers[0].key);
  for (const s of steps)
    if (!seen.has(s.key)) throw invalidField(`step "${s.key}"`, 'is not reachable from the trigger.');
  const listens = [
    ...new Set(
      steps
        .filter((s) => s.type === 'trigger' || s.type === 'wait_for_event')
        .map((s) => s.config.event_name as string)
        .filter(isSystemEvent),
    ),
  ];
  const waits = [
    ...new Set(steps.filter((s) => s.type === 'wait_for_event').map((s) => s.config.event_name as string)),
  ];
  return { steps, connections, triggerEvent: triggers[0].config.event_name, listens, waits };
}
