// npm test starts the longest files first (test/order.mjs): a file renamed or removed must leave
// that list too, or the run's tail grows again without anyone noticing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../helpers/root.js';
// @ts-expect-error: a plain ES module without types
import { LONGEST_FIRST, testFiles } from '../order.mjs';

test('every file in the longest-first list exists, and npm test runs each test file once', () => {
  for (const f of LONGEST_FIRST as string[]) assert.ok(fs.existsSync(path.join(ROOT, f)), `${f} is gone`);
  const files = testFiles(ROOT) as string[];
  assert.equal(new Set(files).size, files.length);
  assert.ok(files.includes('test/house/test-order.test.ts'));
  assert.deepEqual(files.slice(0, 3), (LONGEST_FIRST as string[]).slice(0, 3));
});
