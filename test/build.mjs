// Compiles src/ and test/ into .test-build/ (esbuild, file by file, no bundling: the same transform
// tsx applies) so that `npm test` runs each test file as plain JavaScript. Loading the sources
// through tsx cost every test process 2.5-3 s of CPU more than loading the same code compiled
// (measured on the 2-core machine), and `npm test` starts ~240 of them: minutes of the run.
// The dashboard's TypeScript modules that tests import (ui/src/*.ts, ui/vite.config.ts) are compiled
// too. Every other file under src/, test/ and ui/ (migrations, fixtures, .tsx, the built ui/dist) is
// linked in at the same path (the dashboard's copied), so paths taken from import.meta.url resolve as they do in the
// sources; a test that needs the checkout itself (README, sources) takes ROOT from
// test/helpers/root.ts.
// `node --import tsx --test test/FILE.test.ts` still runs one file from its source.
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';

export const OUT = '.test-build';

// Files under `dir`; a directory named in `whole` is one entry (linked as it is).
function walk(dir, whole = []) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() && !whole.includes(p) ? walk(p, whole) : [p];
  });
}

export async function buildTests(root = '.') {
  const out = path.join(root, OUT);
  fs.rmSync(out, { recursive: true, force: true });
  const ui = path.join(root, 'ui');
  const files = [...walk(path.join(root, 'src')), ...walk(path.join(root, 'test')), ...walk(ui, [path.join(ui, 'dist')])];
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
    // The dashboard's files are copied: Vite refuses an entry (index.html) that is a link out of its root.
    if (path.relative(ui, f).split(path.sep)[0] !== '..' && f !== path.join(ui, 'dist')) fs.copyFileSync(f, at);
    else fs.symlinkSync(path.relative(path.dirname(at), f), at);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await buildTests();
