// The checkout's root, whether the test runs from its source or from the compiled copy `npm test`
// runs (.test-build/, made by test/build.mjs): the nearest directory above that holds package.json.
// Paths to the checkout itself (README, sources, dist/, node_modules) start here, never from
// import.meta.url, which in the compiled copy is one level deeper.
import fs from 'node:fs';
import path from 'node:path';

function rootAbove(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`);
  }
}

export const ROOT = rootAbove(import.meta.dirname);
export const SRC = path.join(ROOT, 'src');
