// Every public method of the official Node SDK (the `resend` devDependency) is called by name in some
// test, so none is left untried against Mailroom (issue 28: "every method of the newest SDK works
// through the SDK, tested"). The methods are read off a client instance, resource by resource; the
// SDK's own plumbing (the HTTP verbs, header handling) and what its type definitions declare
// private are not API methods. A method counts as called when a test file names it with its
// resource: `.emails.send(` or, through a variable holding the resource, `.receiving.list(`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Resend } from 'resend';

import { ROOT } from '../helpers/root.js';
const PLUMBING = new Set(['post', 'get', 'put', 'patch', 'delete', 'fetchRequest', 'logError']);

function privateNames(): Set<string> {
  const dts = fs.readFileSync(path.join(ROOT, 'node_modules/resend/dist/index.d.mts'), 'utf8');
  return new Set([...dts.matchAll(/^\s*private (?:readonly )?(\w+)/gm)].map((m) => m[1]));
}

/** Dotted paths of the client's methods: `emails.send`, `inboxes.threads.emails.reply`, ... */
function sdkMethods(): string[] {
  const hidden = privateNames();
  const out: string[] = [];
  const walk = (o: object, at: string[], above: object[]) => {
    if (above.includes(o)) return; // a resource holding its client: a cycle, not a path (aliases such as audiences = segments are paths)
    const names = new Set(Object.keys(o));
    for (let p = Object.getPrototypeOf(o); p && p !== Object.prototype; p = Object.getPrototypeOf(p))
      for (const n of Object.getOwnPropertyNames(p)) names.add(n);
    for (const n of names) {
      if (n === 'constructor' || n.startsWith('_') || hidden.has(n) || n === 'resend') continue;
      const v = (o as Record<string, unknown>)[n];
      if (typeof v === 'function') {
        if (!(at.length === 0 && PLUMBING.has(n))) out.push([...at, n].join('.'));
      } else if (v && typeof v === 'object' && !(v instanceof Headers) && !Array.isArray(v) && at.length < 3)
        walk(v, [...at, n], [...above, o]);
    }
  };
  walk(new Resend('re_house_check'), [], []);
  return out.sort();
}

function testSources(): string {
  const texts: string[] = [];
  const read = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) read(f);
      else if (f.endsWith('.ts') && !f.endsWith('sdk-methods.test.ts')) texts.push(fs.readFileSync(f, 'utf8'));
    }
  };
  read(path.join(ROOT, 'test'));
  return texts.join('\n');
}

test('every public method of the resend SDK is called by name in a test', () => {
  const methods = sdkMethods();
  assert.ok(methods.length >= 140, `only ${methods.length} methods found on the client: the walk is broken`);
  const sources = testSources();
  const untried = methods.filter(
    (m) => !sources.includes(`.${m}(`) && !sources.includes(`.${m.split('.').slice(-2).join('.')}(`),
  );
  console.log(`# resend SDK: ${methods.length} public methods, ${methods.length - untried.length} called in tests`);
  assert.deepEqual(untried, [], 'SDK methods no test calls');
});
