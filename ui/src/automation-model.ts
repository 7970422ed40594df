// The automation builder's model (README "Automations"): the saved graph (steps + connections) as
// a tree people edit top to bottom, a flow of steps where a condition or a wait ends its flow with
// two branches (condition_met / condition_not_met, event_received / timeout), and back to the very
// graph the API takes. A graph the tree cannot show (two branches joining one step) returns null.
// Also: durations as number + unit, condition rules as editable groups, and a 422 mapped to the
// step it names. The server validates; this file only shapes what the user typed.

/** What the step editors pick from: the team's templates, event names, segments and contact properties. */
export interface Refs {
  templates: { id: string; name: string; alias: string | null }[];
  eventNames: string[];
  segments: { id: string; name: string }[];
  properties: string[];
}

export type StepType =
  | 'trigger'
  | 'send_email'
  | 'delay'
  | 'wait_for_event'
  | 'condition'
  | 'contact_update'
  | 'contact_delete'
  | 'add_to_segment';
export interface ApiStep {
  key: string;
  type: StepType;
  config: Record<string, any>;
}
export interface ApiConnection {
  from: string;
  to: string;
  type: string;
}
export interface Graph {
  steps: ApiStep[];
  connections: ApiConnection[];
}

/** One step; a condition or wait holds its two branches (`yes`: met / event received, `no`: not met / timed out). */
export interface Node {
  key: string;
  type: StepType;
  config: Record<string, any>;
  yes: Node[];
  no: Node[];
  cond?: Group;
  filter?: Group;
}

export const STEP_WORDS: Record<StepType, string> = {
  trigger: 'Trigger',
  send_email: 'Send email',
  delay: 'Delay',
  wait_for_event: 'Wait for event',
  condition: 'Condition',
  contact_update: 'Update contact',
  contact_delete: 'Delete contact',
  add_to_segment: 'Add to segment',
};
export const ADDABLE: StepType[] = [
  'send_email',
  'delay',
  'wait_for_event',
  'condition',
  'contact_update',
  'add_to_segment',
  'contact_delete',
];

export const branching = (n: Pick<Node, 'type'>) => n.type === 'condition' || n.type === 'wait_for_event';
export const hasTimeout = (n: Node) => n.type === 'wait_for_event' && Boolean(n.config.timeout);
export const branchWords = (n: Node): [string, string] =>
  n.type === 'condition' ? ['Yes: the condition is met', 'No: it is not met'] : ['The event arrived', 'Timed out'];

/** The saved graph as a tree from its trigger, or null when a step is reached twice or not at all. */
export function fromGraph(g: Graph): Node[] | null {
  const byKey = new Map(g.steps.map((s) => [s.key, s]));
  const trigger = g.steps.find((s) => s.type === 'trigger');
  if (!trigger) return null;
  const seen = new Set<string>();
  let ok = true;
  const out = (key: string, ...types: string[]) =>
    g.connections.filter((c) => c.from === key && types.includes(c.type)).map((c) => c.to);
  const walk = (key: string | undefined): Node[] => {
    if (key === undefined || !ok) return [];
    const s = byKey.get(key);
    if (!s || seen.has(key)) {
      ok = false;
      return [];
    }
    seen.add(key);
    const n = nodeOf(s);
    if (branching(s)) {
      const [a, b] =
        s.type === 'condition'
          ? [out(key, 'condition_met'), out(key, 'condition_not_met')]
          : [out(key, 'event_received', 'default'), out(key, 'timeout')];
      if (a.length > 1 || b.length > 1) {
        ok = false;
        return [];
      }
      n.yes = walk(a[0]);
      n.no = walk(b[0]);
      return [n];
    }
    const next = out(key, 'default');
    if (next.length > 1) {
      ok = false;
      return [];
    }
    return [n, ...walk(next[0])];
  };
  const tree = walk(trigger.key);
  return ok && seen.size === g.steps.length ? tree : null;
}

function nodeOf(s: ApiStep): Node {
  const n: Node = { key: s.key, type: s.type, config: structuredClone(s.config ?? {}), yes: [], no: [] };
  if (s.type === 'condition') n.cond = groupOf(s.config);
  if (s.type === 'wait_for_event' && s.config.filter_rule) n.filter = groupOf(s.config.filter_rule);
  // The send editor gives a template its `variables` object on first render; given here already, an
  // API-made send without one does not read as an unsaved change (which would keep "Turn on" away).
  if (s.type === 'send_email') n.config.template = { id: '', variables: {}, ...(n.config.template ?? {}) };
  return n;
}

/** The tree as the API's graph: steps in reading order, connections typed by the branch they leave. */
export function toGraph(tree: Node[]): Graph {
  const steps: ApiStep[] = [];
  const connections: ApiConnection[] = [];
  const emit = (nodes: Node[], link: ((to: string) => void) | null) => {
    let l = link;
    for (const n of nodes) {
      steps.push({ key: n.key, type: n.type, config: configOf(n) });
      l?.(n.key);
      if (branching(n)) {
        const [a, b] = n.type === 'condition' ? ['condition_met', 'condition_not_met'] : ['event_received', 'timeout'];
        emit(n.yes, (to) => connections.push({ from: n.key, to, type: a }));
        if (n.type === 'condition' || hasTimeout(n)) emit(n.no, (to) => connections.push({ from: n.key, to, type: b }));
        return;
      }
      l = (to) => connections.push({ from: n.key, to, type: 'default' });
    }
  };
  emit(tree, null);
  return { steps, connections };
}

function configOf(n: Node): Record<string, any> {
  if (n.type === 'condition') return n.cond ? ruleOf(n.cond) : n.config;
  if (n.type === 'wait_for_event') {
    const { filter_rule: _f, timeout, ...rest } = n.config;
    return { ...rest, ...(timeout ? { timeout } : {}), ...(n.filter ? { filter_rule: ruleOf(n.filter) } : {}) };
  }
  return n.config;
}

/** A new step's starting config. */
export function newNode(type: StepType, key: string): Node {
  const config: Record<string, any> = {
    trigger: { event_name: '' },
    send_email: { template: { id: '', variables: {} } },
    delay: { duration: '1 day' },
    wait_for_event: { event_name: '', timeout: '3 days' },
    condition: {},
    contact_update: {},
    contact_delete: {},
    add_to_segment: { segment_id: '' },
  }[type];
  const n: Node = { key, type, config, yes: [], no: [] };
  if (type === 'condition') n.cond = { kind: 'group', join: 'and', items: [newCondRow('event.')] };
  return n;
}

/** `send_email_2`: the type and the lowest number no step of the tree uses yet. */
export function freshKey(tree: Node[], type: StepType): string {
  const used = new Set<string>();
  const walk = (ns: Node[]) =>
    ns.forEach((n) => {
      used.add(n.key);
      walk(n.yes);
      walk(n.no);
    });
  walk(tree);
  for (let i = 1; ; i++) if (!used.has(`${type}_${i}`)) return `${type}_${i}`;
}

/**
 * Puts `n` into `flow` at `at`. A condition or wait ends a flow, so the steps that followed move
 * into its first branch (met / the event arrived).
 */
export function insert(flow: Node[], at: number, n: Node): void {
  if (branching(n)) n.yes = flow.splice(at, flow.length - at, n).concat(n.yes);
  else flow.splice(at, 0, n);
}

/** Takes the step out; a condition's or wait's first branch takes its place, its second is dropped. */
export function remove(flow: Node[], at: number): void {
  const n = flow[at];
  flow.splice(at, 1, ...(branching(n) ? n.yes : []));
}

// Durations: "2 hours" ↔ number + unit.
export const UNITS = ['minute', 'hour', 'day', 'week'] as const;
export function splitDuration(d: unknown): { n: string; unit: string } {
  const m = typeof d === 'string' ? /^\s*([\d.]*)\s*(second|minute|hour|day|week)s?\s*$/i.exec(d) : null;
  return m ? { n: m[1], unit: m[2].toLowerCase() } : { n: '', unit: 'day' };
}
export const joinDuration = (n: string, unit: string) => `${n.trim()} ${unit}${n.trim() === '1' ? '' : 's'}`;

// Condition rules: {type: "rule", field, operator, value} / {type: "and"|"or", rules} ↔ editable groups.
export type ValueType = 'text' | 'number' | 'boolean';
export interface CondRow {
  kind: 'row';
  field: string;
  op: string;
  value: string;
  vtype: ValueType;
}
export interface Group {
  kind: 'group';
  join: 'and' | 'or';
  items: (CondRow | Group)[];
}
export const COND_OPS: [string, string][] = [
  ['eq', 'is'],
  ['neq', 'is not'],
  ['gt', 'is more than'],
  ['gte', 'is at least'],
  ['lt', 'is less than'],
  ['lte', 'is at most'],
  ['contains', 'contains'],
  ['starts_with', 'starts with'],
  ['ends_with', 'ends with'],
  ['exists', 'exists'],
  ['is_empty', 'is empty'],
];
export const NUMBER_OPS = new Set(['gt', 'gte', 'lt', 'lte']);
export const TEXT_OPS = new Set(['contains', 'starts_with', 'ends_with']);
export const NO_VALUE_OPS = new Set(['exists', 'is_empty']);

export const newCondRow = (field = 'event.'): CondRow => ({ kind: 'row', field, op: 'eq', value: '', vtype: 'text' });

export function groupOf(raw: any): Group {
  if (raw && (raw.type === 'and' || raw.type === 'or') && Array.isArray(raw.rules)) {
    return {
      kind: 'group',
      join: raw.type,
      items: raw.rules.map((r: any) => (r?.type === 'and' || r?.type === 'or' ? groupOf(r) : rowOf(r))),
    };
  }
  return { kind: 'group', join: 'and', items: raw && raw.type === 'rule' ? [rowOf(raw)] : [newCondRow()] };
}

function rowOf(r: any): CondRow {
  const v = r?.value;
  const vtype: ValueType = typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'boolean' : 'text';
  return {
    kind: 'row',
    field: String(r?.field ?? 'event.'),
    op: String(r?.operator ?? 'eq'),
    value: v === undefined || v === null ? '' : String(v),
    vtype,
  };
}

/** A group as the API's rule: a group of one plain row is that rule alone. */
export function ruleOf(g: Group): Record<string, unknown> {
  if (g.items.length === 1 && g.items[0].kind === 'row') return ruleRow(g.items[0]);
  return { type: g.join, rules: g.items.map((x) => (x.kind === 'row' ? ruleRow(x) : ruleOf(x))) };
}

function ruleRow(r: CondRow): Record<string, unknown> {
  const base = { type: 'rule', field: r.field, operator: r.op };
  if (NO_VALUE_OPS.has(r.op)) return base;
  const type: ValueType = NUMBER_OPS.has(r.op) ? 'number' : TEXT_OPS.has(r.op) ? 'text' : r.vtype;
  const value =
    type === 'number'
      ? r.value.trim() === ''
        ? r.value
        : Number(r.value)
      : type === 'boolean'
        ? r.value === 'true'
        : r.value;
  return { ...base, value };
}

/**
 * A 422 from saving → the step it names and the rest of the message in plain words, e.g.
 * "Invalid `steps[2] (key "wait_1").config.timeout` field: must be ..." → {key: "wait_1", text: "timeout: must be ..."}.
 * A connection's error goes to the step it leaves (from the graph that was sent).
 */
export function stepError(message: string, sent: Graph): { key?: string; text: string } {
  const m = /^(?:Invalid|Missing) `([^`]+)` field[.:]?\s*(.*)$/s.exec(message);
  if (!m) return { text: message };
  const [, path, why] = m;
  const what = why || 'is required.';
  const cap = (x: string) => x.replace(/^\w/, (ch) => ch.toUpperCase());
  let k = /^steps\[\d+\] \(key "([^"]*)"\)(?:\.config\.?(.*)|\.(type))?/.exec(path);
  // "rules[1].rules[0].value" → "Rule 2, rule 1, value"
  const words = (sub: string) =>
    cap(
      sub
        .replace(/rules\[(\d+)\]/g, (_m, i: string) => `rule ${Number(i) + 1}`)
        .split('.')
        .filter(Boolean)
        .join(', '),
    );
  if (k) return { key: k[1], text: k[2] ? `${words(k[2])}: ${what}` : cap(what) };
  k = /^step "([^"]*)"/.exec(path);
  if (k) return { key: k[1], text: cap(what) };
  const c = /^connections\[(\d+)\]/.exec(path);
  if (c && sent.connections[Number(c[1])]) return { key: sent.connections[Number(c[1])].from, text: cap(what) };
  return { text: `${path}: ${what}` };
}

/** What a step does, in words, with names instead of ids ("Welcome", "VIP customers", "journey.done"). */
export function stepTitle(
  s: Pick<ApiStep, 'type' | 'config'>,
  names: { templates: { id: string; name: string; alias?: string | null }[]; segments: { id: string; name: string }[] },
): string {
  const c = s.config ?? {};
  switch (s.type) {
    case 'trigger':
      return `When ${c.event_name ?? '?'}`;
    case 'send_email': {
      const id = String(c.template?.id ?? '');
      const t = names.templates.find((x) => x.id === id || (x.alias && x.alias === id));
      return t ? t.name : id ? `a template no longer published` : 'no template';
    }
    case 'add_to_segment': {
      const seg = names.segments.find((x) => x.id === c.segment_id);
      return seg ? seg.name : 'a deleted segment';
    }
    case 'delay':
      return `for ${c.duration ?? '?'}`;
    case 'wait_for_event':
      return `${c.event_name ?? '?'}${c.timeout ? `, up to ${c.timeout}` : ''}`;
    case 'condition':
      return ruleWords(c);
    case 'contact_update':
      return Object.keys({ ...c, ...(c.properties ?? {}) })
        .filter((k) => k !== 'properties')
        .join(', ');
    default:
      return '';
  }
}

function ruleWords(r: Record<string, any>): string {
  if ((r.type === 'and' || r.type === 'or') && Array.isArray(r.rules))
    return r.rules.map((x: Record<string, any>) => ruleWords(x)).join(` ${r.type} `);
  if (r.type !== 'rule') return '';
  return `${r.field} ${String(r.operator).replace(/_/g, ' ')}${r.value !== undefined ? ` ${JSON.stringify(r.value)}` : ''}`;
}

/** Run and step statuses → badge colours. */
export const runTone = (s: string) =>
  (
    ({ running: 'sent', waiting: 'pending', pending: 'pending', cancelled: 'disabled', skipped: 'draft' }) as Record<
      string,
      string
    >
  )[s] ?? s;
