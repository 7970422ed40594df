// The house rules that keep the code walkable: no import cycle between folders of src/, and the
// HTTP routes do not reach into store/ (they call modules). Read from the source, so a new
// import that breaks a rule fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { SRC } from '../helpers/root.js';

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

/** Relative imports of a file (static, dynamic and `export ... from`), as absolute paths. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1]);
  return specs.map((s) => path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')));
}

/** The unit a file belongs to: its top folder under src/, or the file itself at the top. */
const unitOf = (file: string) => path.relative(SRC, file).split(path.sep)[0].replace(/\.ts$/, '');

test('no import cycle between the folders of src/', () => {
  const edges = new Map<string, Set<string>>();
  for (const f of files(SRC)) {
    const from = unitOf(f);
    for (const to of importsOf(f).map(unitOf)) {
      if (to === from) continue;
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from)!.add(to);
    }
  }
  const cycles: string[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const visit = (u: string, trail: string[]) => {
    if (state.get(u) === 'done') return;
    if (state.get(u) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(u)), u].join(' → '));
      return;
    }
    state.set(u, 'open');
    for (const v of edges.get(u) ?? []) visit(v, [...trail, u]);
    state.set(u, 'done');
  };
  for (const u of edges.keys()) visit(u, []);
  assert.deepEqual(cycles, []);
});

// Routes that may still reach store/ directly: none. A temporary exception must be written
// here, never silent.
const ROUTES_STILL_ON_STORE = new Set<string>([]);

test('HTTP routes call modules, not store/ (no route beyond the known list reaches the database directly)', () => {
  const routes = [...files(path.join(SRC, 'http', 'api')), ...files(path.join(SRC, 'http', 'dashboard'))];
  const reachesDb = (f: string) =>
    importsOf(f).some((i) => i.startsWith(path.join(SRC, 'store') + path.sep)) ||
    /\.query\s*[<(]/.test(fs.readFileSync(f, 'utf8'));
  const onStore = routes.filter(reachesDb).map((f) => path.relative(path.join(SRC, 'http'), f).replace(/^api\//, ''));
  const fresh = onStore.filter((f) => !ROUTES_STILL_ON_STORE.has(f));
  assert.deepEqual(fresh, [], 'new routes must call a module');
  const stale = [...ROUTES_STILL_ON_STORE].filter((f) => !onStore.includes(f));
  assert.deepEqual(stale, [], 'these no longer import store/: remove them from the list');
});

// The jobs table's own rules (only store/jobs.ts has SQL on it, kinds as constants): jobs.test.ts.
