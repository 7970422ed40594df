// What a process loads at start, read from the source: src/app.ts's static imports, followed
// through src/, must not reach the packages only some roles or rare requests use (issue 27,
// memory: the inbound pipeline held ~6 MB of heap in every api and worker process). Those are
// imported where they are used (`await import(...)`), so a new static import that pulls one back
// in for every role fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { SRC } from '../helpers/root.js';

/** Packages that only the smtp and mx roles, a privacy export or an attachment download need. */
const LOADED_ON_USE = ['mailparser', 'smtp-server', 'mailauth', 'fast-xml-parser', 'libmime', '@peculiar/asn1-x509'];

/** Static imports (and `export ... from`) of a file; `import type` and `await import()` are not loaded at start. */
function staticImports(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  return [...text.matchAll(/^\s*(import|export)\s+(?!type\s)[^'";]*?from\s*'([^']+)'|^\s*import\s*'([^']+)'/gm)].map(
    (m) => m[2] ?? m[3],
  );
}

/** Every package src/app.ts reaches through static imports, each with the chain of files that reaches it. */
function packagesAtStart(): Map<string, string[]> {
  const seen = new Map<string, string[]>([[path.join(SRC, 'app.ts'), ['app.ts']]]);
  const packages = new Map<string, string[]>();
  const queue = [path.join(SRC, 'app.ts')];
  while (queue.length) {
    const file = queue.shift()!;
    const chain = seen.get(file)!;
    for (const spec of staticImports(file)) {
      if (spec.startsWith('.')) {
        const target = path.resolve(path.dirname(file), spec.replace(/\.js$/, '.ts'));
        if (!seen.has(target) && fs.existsSync(target)) {
          seen.set(target, [...chain, path.relative(SRC, target)]);
          queue.push(target);
        }
      } else if (!spec.startsWith('node:')) {
        const pkg = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        if (!packages.has(pkg)) packages.set(pkg, chain);
      }
    }
  }
  return packages;
}

test('the packages of the smtp and mx roles and of rare requests are not loaded at start', () => {
  const packages = packagesAtStart();
  // The walk sees the packages every process needs (a walk that found nothing would pass anything).
  for (const pkg of ['fastify', 'pg', 'nodemailer']) assert.ok(packages.has(pkg), `${pkg} not found by the walk`);
  const loaded = LOADED_ON_USE.filter((p) => packages.has(p)).map((p) => `${p}: ${packages.get(p)!.join(' > ')}`);
  assert.deepEqual(loaded, []);
});
