// Compiles src/ and test/ into .test-build/ (esbuild, file by file, no bundling: the same transform
// tsx applies) so that `npm test` runs each test file as plain JavaScript. Loading the sources
// through tsx cost every test process 2.5-3 s of CPU more than loading the same code compiled
// (measured on the 2-core machine), and `npm test` starts ~240 of them: minutes of the run.
// Every other file under src/ and test/ (migrations, fixtures) is linked in at the same path, and
// ui/ beside them, so paths taken from import.meta.url resolve as they do in the sources; a test
// that needs the checkout itself (README, sources) takes ROOT from test/helpers/root.ts.
// `node --import tsx --test test/FILE.test.ts` still runs one file from its source.
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

export const OUT = '.test-build';

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : [p];
  });
}

export async function buildTests(root = '.') {
  const out = path.join(root, OUT);
  fs.rmSync(out, { recursive: true, force: true });
  const files = [...walk(path.join(root, 'src')), ...walk(path.join(root, 'test'))];
  const sources = files.filter((f) => f.endsWith('.ts'));
  await esbuild.build({
    entryPoints: sources,
    outdir: out,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  for (const f of files.filter((f) => !f.endsWith('.ts'))) {
    const at = path.join(out, path.relative(root, f));
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(path.relative(path.dirname(at), f), at);
  }
  fs.symlinkSync('../ui', path.join(out, 'ui'));
  return sources.length;
}

if (import.meta.url === `file://${process.argv[1]}`) await buildTests();
