// The rule src/http/routes.ts states, held: a file under src/http/api/ owns one resource's routes,
// whole (`<resource>.ts`) or one action of it (`<resource>.<action>.ts`, aliases of that action
// included), or shares its schemas (`<resource>.schema.ts`, no routes); a route's path begins with
// its file's resource, apart from the aliases named here with their reason; no path and method is
// registered twice; routes.ts registers every file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { SRC } from '../helpers/root.js';

const HTTP = path.join(SRC, 'http');
const API = path.join(HTTP, 'api');

/** First path segments a file may use besides its resource's own, and why. */
const ALIASES: Record<string, { segments: string[]; why: string }> = {
  contacts: {
    segments: ['audiences', 'segments'],
    why: 'the legacy /audiences/:id/contacts paths and GET /segments/:id/contacts list contacts',
  },
  emails: {
    segments: ['files', 'share'],
    why: "a sent attachment's download (/files/sent) and an email's public share page (/share/:id)",
  },
  domains: { segments: ['reputation'], why: "the team-wide reputation alerts next to a domain's reputation" },
  tracking: { segments: ['t'], why: 'open and click links are short: /t/o, /t/c' },
  unsubscribe: { segments: ['u'], why: 'one-click unsubscribe links are short: /u/:token' },
};

const ROUTE = /app\.(get|post|put|patch|delete)(?:<[^>]*>)?\(\s*'([^']+)'/g;
const files = fs
  .readdirSync(API)
  .filter((f) => f.endsWith('.ts'))
  .sort();

test("every file under api/ is a resource, an action of one, or a resource's schemas", () => {
  for (const f of files) {
    assert.match(f, /^[a-z][a-z-]*(\.[a-z][a-z-]*)*\.ts$/, `${f}: <resource>[.<action>].ts`);
    const routes = [...fs.readFileSync(path.join(API, f), 'utf8').matchAll(ROUTE)];
    if (f.endsWith('.schema.ts')) assert.equal(routes.length, 0, `${f} holds schemas, not routes`);
    else assert.ok(routes.length > 0, `${f} registers no route`);
  }
});

test("a route's path begins with its file's resource (or a named alias), and no method and path is registered twice", () => {
  const seen = new Map<string, string>();
  const wrong: string[] = [];
  for (const f of files) {
    const resource = f.split('.')[0];
    const allowed = [resource, ...(ALIASES[resource]?.segments ?? [])];
    for (const [, method, p] of fs.readFileSync(path.join(API, f), 'utf8').matchAll(ROUTE)) {
      const first = p.split('/')[1];
      if (!allowed.includes(first)) wrong.push(`${f}: ${method.toUpperCase()} ${p}`);
      const key = `${method.toUpperCase()} ${p}`;
      assert.ok(!seen.has(key), `${key} is registered in ${seen.get(key)} and ${f}`);
      seen.set(key, f);
    }
  }
  assert.deepEqual(wrong, [], "routes outside their file's resource");
  assert.ok(seen.size > 100, `read ${seen.size} routes: the pattern still finds them`);
});

test('routes.ts registers every route file under api/', () => {
  const text = fs.readFileSync(path.join(HTTP, 'routes.ts'), 'utf8');
  const missing = files.filter(
    (f) => !f.endsWith('.schema.ts') && !text.includes(`'./api/${f.replace(/\.ts$/, '.js')}'`),
  );
  assert.deepEqual(missing, []);
});
