// The house rule of the jobs table: store/jobs.ts owns it. No other file of src/ has SQL on job
// rows or names a job kind as a string (the registry's constants instead); the SQL functions of
// the migrations that write job rows are named in its header; src/ declares no kind at run time.
// Read from the source (comments left out), so a new statement or literal elsewhere fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { JOB_KINDS } from '../../src/store/jobs.js';

import { SRC } from '../helpers/root.js';
const MIGRATIONS = path.join(SRC, 'store', 'migrations');
const OWNER = path.join(SRC, 'store', 'jobs.ts');

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : p.endsWith('.ts') && !p.endsWith('.d.ts') ? [p] : [];
  });
}

const parse = (file: string) => ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
const printer = ts.createPrinter({ removeComments: true });
const rel = (f: string) => path.relative(SRC, f);

/** Every node of a file, depth first. */
function* nodes(n: ts.Node): Generator<ts.Node> {
  yield n;
  const children: ts.Node[] = [];
  ts.forEachChild(n, (c) => {
    children.push(c);
  });
  for (const c of children) yield* nodes(c);
}

/** The text of every string literal and template part of a file (what SQL and kinds are written in). */
const stringsOf = (sf: ts.SourceFile) =>
  [...nodes(sf)]
    .filter(
      (n): n is ts.StringLiteral | ts.NoSubstitutionTemplateLiteral | ts.TemplateLiteralLikeNode =>
        ts.isStringLiteral(n) ||
        ts.isNoSubstitutionTemplateLiteral(n) ||
        ts.isTemplateHead(n) ||
        ts.isTemplateMiddle(n) ||
        ts.isTemplateTail(n),
    )
    .map((n) => n.text);

const JOBS_SQL = /\b(INSERT INTO|UPDATE|DELETE FROM|FROM|JOIN)\s+jobs\b/i;

test('no file of src/ but store/jobs.ts has SQL on the jobs table (insert, update, delete or select)', () => {
  const sources = files(SRC).filter((f) => f !== OWNER);
  const offenders = sources.flatMap((f) => {
    const code = printer.printFile(parse(f)); // without comments: prose may say "from jobs"
    const m = code.match(JOBS_SQL);
    return m ? [`${rel(f)}: ${m[0]}`] : [];
  });
  assert.deepEqual(
    offenders,
    [],
    'move the statement into store/jobs.ts (a fragment, when it must stay one statement with another table)',
  );
  assert.match(printer.printFile(parse(OWNER)), JOBS_SQL, 'the rule still looks at the right text');
});

test("no file of src/ but store/jobs.ts names a registered job kind in a string: the registry's constants are used", () => {
  const kinds = Object.keys(JOB_KINDS);
  const inString = kinds.map((k) => ({ k, re: new RegExp(`(?<![\\w.])${k.replace(/\./g, '\\.')}(?![\\w])`) }));
  const offenders = files(SRC)
    .filter((f) => f !== OWNER)
    .flatMap((f) =>
      stringsOf(parse(f)).flatMap((s) => inString.filter(({ re }) => re.test(s)).map(({ k }) => `${rel(f)}: '${k}'`)),
    );
  assert.deepEqual([...new Set(offenders)], [], "import the kind's constant from store/jobs.ts");
  assert.ok(stringsOf(parse(OWNER)).includes('email.deliver'), 'the rule still looks at the right text');
});

test('src/ declares no job kind at run time: a kind production runs is in JOB_KINDS', () => {
  const callers = files(SRC).filter((f) =>
    [...nodes(parse(f))].some(
      (n) =>
        ts.isCallExpression(n) &&
        (n.expression.getText() === 'registerJobKinds' || n.expression.getText().endsWith('.registerJobKinds')),
    ),
  );
  assert.deepEqual(callers.map(rel), []);
});

test("the SQL functions of the migrations that write job rows are named in store/jobs.ts's header, and every kind they name is registered", () => {
  const header = fs
    .readFileSync(OWNER, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('//'))
    .join('\n');
  const writers: string[] = [];
  const named: string[] = [];
  for (const m of fs.readdirSync(MIGRATIONS).sort()) {
    const sql = fs.readFileSync(path.join(MIGRATIONS, m), 'utf8');
    for (const [, name, body] of sql.matchAll(/CREATE (?:OR REPLACE )?FUNCTION (\w+)\([\s\S]*?\$\$([\s\S]*?)\$\$/g)) {
      if (/\b(INSERT INTO|UPDATE|DELETE FROM)\s+jobs\b/i.test(body)) writers.push(name);
    }
    named.push(
      ...[...sql.matchAll(/(?:INSERT INTO jobs \(kind[^)]*\) VALUES \(|kind = )'([a-z_.]+)'/g)].map((x) => x[1]),
    );
  }
  assert.ok(
    writers.includes('webhooks_wake_dispatcher') && writers.includes('automations_wake'),
    `the rule finds the triggers: ${writers.join(', ')}`,
  );
  assert.deepEqual(
    writers.filter((w) => !header.includes(w)),
    [],
    "name these in store/jobs.ts's header",
  );
  assert.ok(named.includes('webhooks.dispatch'), 'the outbox trigger queues the dispatcher');
  for (const k of named) assert.ok(Object.hasOwn(JOB_KINDS, k), `${k} (named in a migration) is registered`);
});
