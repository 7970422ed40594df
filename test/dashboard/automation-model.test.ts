// The automation builder's model (ui/src/automation-model.ts) against the server's own graph check
// (src/automations/graph.ts, not a copy): trees built step by step become graphs the API accepts,
// saved graphs come back as the same tree, and a 422's path lands on the step it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { graphOf } from '../../src/automations/graph.js';
import { AppError } from '../../src/errors.js';
import {
  freshKey,
  fromGraph,
  groupOf,
  insert,
  newNode,
  remove,
  ruleOf,
  splitDuration,
  joinDuration,
  stepError,
  toGraph,
  type Node,
} from '../../ui/src/automation-model.js';

const keys = (g: { steps: { key: string }[] }) => g.steps.map((s) => s.key);
const serverError = (g: ReturnType<typeof toGraph>): string => {
  try {
    graphOf(g.steps, g.connections);
  } catch (e) {
    return (e as AppError).message;
  }
  throw new Error('the server accepted the graph');
};

test('a tree built with insert/remove is a graph the server accepts, in reading order', () => {
  const tree: Node[] = [newNode('trigger', 'trigger')];
  tree[0].config.event_name = 'user.created';
  const send = newNode('send_email', freshKey(tree, 'send_email'));
  send.config.template.id = 'welcome';
  insert(tree, 1, send);
  const wait = newNode('wait_for_event', freshKey(tree, 'wait_for_event'));
  wait.config.event_name = 'user.activated';
  insert(tree, 2, wait);
  const thanks = newNode('send_email', freshKey(tree, 'send_email'));
  thanks.config.template.id = 'thanks';
  insert(wait.yes, 0, thanks);
  assert.equal(thanks.key, 'send_email_2');
  // The timeout branch is empty while the wait has a timeout: the server says so, on the wait.
  const first = toGraph(tree);
  const msg = serverError(first);
  assert.deepEqual(stepError(msg, first), {
    key: 'wait_for_event_1',
    text: 'The wait has a timeout but no timeout connection.',
  });
  const reminder = newNode('send_email', 'reminder');
  reminder.config.template.id = 'reminder';
  insert(wait.no, 0, reminder);
  const g = toGraph(tree);
  assert.equal(graphOf(g.steps, g.connections).triggerEvent, 'user.created');
  assert.deepEqual(keys(g), ['trigger', 'send_email_1', 'wait_for_event_1', 'send_email_2', 'reminder']);
  assert.deepEqual(
    g.connections.map((c) => `${c.from}>${c.to}:${c.type}`),
    [
      'trigger>send_email_1:default',
      'send_email_1>wait_for_event_1:default',
      'wait_for_event_1>send_email_2:event_received',
      'wait_for_event_1>reminder:timeout',
    ],
  );
  // Saved and read back: the same tree, the same graph.
  assert.deepEqual(toGraph(fromGraph(g)!), g);
});

test('a condition inserted mid-flow takes the steps after it into its "met" branch; removing it puts them back', () => {
  const tree: Node[] = [newNode('trigger', 't'), newNode('delay', 'd'), newNode('contact_delete', 'bye')];
  tree[0].config.event_name = 'x';
  const cond = newNode('condition', 'c');
  insert(tree, 1, cond);
  assert.deepEqual(
    tree.map((n) => n.key),
    ['t', 'c'],
  );
  assert.deepEqual(
    cond.yes.map((n) => n.key),
    ['d', 'bye'],
  );
  const g = toGraph(tree);
  // The "not met" branch is empty: the server names the condition.
  assert.equal(stepError(serverError(g), g).key, 'c');
  remove(tree, 1);
  assert.deepEqual(
    tree.map((n) => n.key),
    ['t', 'd', 'bye'],
  );
  const back = toGraph(tree);
  assert.doesNotThrow(() => graphOf(back.steps, back.connections));
});

test("rule trees (and/or, nested, typed values) round-trip; a bad value's 422 names the rule", () => {
  const rule = {
    type: 'or',
    rules: [
      { type: 'rule', field: 'event.plan', operator: 'eq', value: 'pro' },
      {
        type: 'and',
        rules: [
          { type: 'rule', field: 'contact.unsubscribed', operator: 'eq', value: false },
          { type: 'rule', field: 'event.seats', operator: 'gte', value: 5 },
          { type: 'rule', field: 'event.note', operator: 'is_empty' },
        ],
      },
    ],
  };
  assert.deepEqual(ruleOf(groupOf(rule)), rule);
  const single = { type: 'rule', field: 'event.n', operator: 'lt', value: 3 };
  assert.deepEqual(ruleOf(groupOf(single)), single);
  const g = {
    steps: [
      { key: 's', type: 'trigger' as const, config: { event_name: 'x' } },
      {
        key: 'c',
        type: 'condition' as const,
        config: { type: 'and', rules: [single, { ...single, operator: 'gt', value: 'many' }] },
      },
      { key: 'a', type: 'contact_delete' as const, config: {} },
      { key: 'b', type: 'contact_delete' as const, config: {} },
    ],
    connections: [
      { from: 's', to: 'c', type: 'default' },
      { from: 'c', to: 'a', type: 'condition_met' },
      { from: 'c', to: 'b', type: 'condition_not_met' },
    ],
  };
  assert.deepEqual(stepError(serverError(g), g), { key: 'c', text: 'Rule 2, value: must be a number for gt.' });
});

test("durations split into number + unit and join back in the server's words; graphs that join branches are not trees", () => {
  assert.deepEqual(splitDuration('2 hours'), { n: '2', unit: 'hour' });
  assert.deepEqual(splitDuration('1 day'), { n: '1', unit: 'day' });
  assert.equal(joinDuration('1', 'week'), '1 week');
  assert.equal(joinDuration('30', 'minute'), '30 minutes');
  const joined = {
    steps: [
      { key: 's', type: 'trigger' as const, config: { event_name: 'x' } },
      { key: 'c', type: 'condition' as const, config: { type: 'rule', field: 'event.a', operator: 'exists' } },
      { key: 'z', type: 'contact_delete' as const, config: {} },
    ],
    connections: [
      { from: 's', to: 'c', type: 'default' },
      { from: 'c', to: 'z', type: 'condition_met' },
      { from: 'c', to: 'z', type: 'condition_not_met' },
    ],
  };
  assert.doesNotThrow(() => graphOf(joined.steps, joined.connections));
  assert.equal(fromGraph(joined), null);
});

test("a wait's filter and a timeout-less wait round-trip; turning the filter off drops filter_rule", () => {
  const g = {
    steps: [
      { key: 's', type: 'trigger' as const, config: { event_name: 'order.placed' } },
      {
        key: 'w',
        type: 'wait_for_event' as const,
        config: {
          event_name: 'order.paid',
          timeout: '2 days',
          filter_rule: { type: 'rule', field: 'event.amount', operator: 'gt', value: 10 },
        },
      },
      { key: 'paid', type: 'contact_update' as const, config: { first_name: { var: 'event.name' } } },
      { key: 'late', type: 'contact_delete' as const, config: {} },
      { key: 'w2', type: 'wait_for_event' as const, config: { event_name: 'order.shipped' } },
    ],
    connections: [
      { from: 's', to: 'w', type: 'default' },
      { from: 'w', to: 'paid', type: 'event_received' },
      { from: 'w', to: 'late', type: 'timeout' },
      { from: 'paid', to: 'w2', type: 'default' },
    ],
  };
  assert.doesNotThrow(() => graphOf(g.steps, g.connections));
  const tree = fromGraph(g)!;
  const back = toGraph(tree);
  // The same steps and connections, in reading order (each branch top to bottom).
  assert.deepEqual(keys(back), ['s', 'w', 'paid', 'w2', 'late']);
  const byKey = (x: { key: string }, y: { key: string }) => x.key.localeCompare(y.key);
  const conn = (c: { from: string; to: string; type: string }) => `${c.from}>${c.to}:${c.type}`;
  assert.deepEqual([...back.steps].sort(byKey), [...g.steps].sort(byKey));
  assert.deepEqual(back.connections.map(conn).sort(), g.connections.map(conn).sort());
  tree[1].filter = undefined;
  const off = toGraph(tree);
  assert.deepEqual(off.steps[1].config, { event_name: 'order.paid', timeout: '2 days' });
  assert.doesNotThrow(() => graphOf(off.steps, off.connections));
});
