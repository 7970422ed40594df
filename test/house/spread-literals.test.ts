// The per-delivery and per-message paths build no object literal with a property (or a second
// spread) after a spread. On Node 20 (V8 11.3) each property an object made by a spread gains is a
// DefineNamedOwnIC miss and a new hidden class in old space: ~1 µs a property and a full
// collection every ~10,000 objects (BENCHMARKS.md, issue 27, twelfth session: 14 such properties
// per webhook attempt were ~15% of the fan-out's CPU). `Object.assign({}, a, { b })`, a literal
// written out, or a spread placed before the literal's own properties are the fast forms.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ROOT } from '../helpers/root.js';

const HOT = [
  'src/webhooks/deliver.job.ts',
  'src/webhooks/http-post.ts',
  'src/webhooks/dispatch.job.ts',
  'src/webhooks/payload.ts',
  'src/webhooks/signature.ts',
  'src/store/webhook-messages.ts',
  'src/delivery/deliver.job.ts',
  'src/delivery/settle.ts',
  'src/emails/mime-submission.ts',
  'src/mime/addresses.ts',
];

/** Literals in `file` with a property or spread after a spread, as `file:line`. */
function spreadThenProperty(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(path.resolve(ROOT, file), 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (n: ts.Node) => {
    if (ts.isObjectLiteralExpression(n)) {
      const first = n.properties.findIndex((p) => ts.isSpreadAssignment(p));
      if (first >= 0 && first < n.properties.length - 1)
        found.push(`${file}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

test('the hot paths build no object literal with properties after a spread', () => {
  assert.deepEqual(HOT.flatMap(spreadThenProperty), []);
});

test('the check finds the pattern (a literal with a property after a spread, and a second spread)', () => {
  const tmp = `${fs.mkdtempSync('/tmp/spread-')}/x.ts`;
  fs.writeFileSync(
    tmp,
    'const a = { x: 1 };\nconst b = { ...a, y: 2 };\nconst c = { y: 2, ...a };\nconst d = {\n  ...a,\n  ...b,\n};\n',
  );
  assert.deepEqual(spreadThenProperty(tmp), [`${tmp}:2`, `${tmp}:4`]);
});
