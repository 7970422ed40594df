// The README's configuration table and the config schema name the same MAILROOM_* settings: a
// setting added to the schema without a row (or a row left for a setting that is gone) fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/root.js';
import { schema } from '../../src/config/schema.js';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

/** The `MAILROOM_*` names in the first column of the table under "## Configuration". */
function tableNames(): Set<string> {
  const start = README.indexOf('\n## Configuration');
  assert.ok(start >= 0, 'the README has a "## Configuration" section');
  const end = README.indexOf('\n## ', start + 1);
  const rows = README.slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((l) => l.startsWith('| `MAILROOM_'));
  return new Set(rows.flatMap((r) => [...r.split('|')[1].matchAll(/`(MAILROOM_[A-Z0-9_]+)`/g)].map((m) => m[1])));
}

test('every setting of the config schema has a row in the README table, and the table names no other', () => {
  const inSchema = new Set(Object.values(schema).map((s) => (s as { env: string }).env));
  const inReadme = tableNames();
  assert.ok(inSchema.size > 20 && inReadme.size > 20, `read ${inSchema.size} settings and ${inReadme.size} rows`);
  assert.deepEqual([...inSchema].filter((n) => !inReadme.has(n)).sort(), [], 'settings missing from the README table');
  assert.deepEqual([...inReadme].filter((n) => !inSchema.has(n)).sort(), [], 'README rows naming no setting');
});
