// Issue 30: the visual email editor is a chunk of its own, loaded only by the pages that use it.
// The dashboard is built (Vite, the project's own config, into a temporary directory) and its
// chunks are read: the editor's code and stylesheet are in none of the chunks the first screen
// loads (the entry and what it imports statically) nor in any other page's chunk, and only the
// Templates and Broadcasts pages reach it through a dynamic import. Also: the documents of a
// template's variables filled in every text, as a broadcast composed from it needs; the editor's
// font stacks and default settings are the server's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, type InlineConfig } from 'vite';
import config from '../../ui/vite.config.js';
import { fillDocument } from '../../ui/src/template-fill.js';
import { DEFAULTS, FONTS } from '../../ui/src/pages/editor/model.js';
import { DEFAULT_SETTINGS, FONT_STACKS } from '../../src/render/document-types.js';

// Strings only the editor's modules hold (its toolbar, menu and preview code, its stylesheet).
const EDITOR_MARKS = ['Personalization tags', 'Edit as raw HTML', 'mr-dark', 'rich-tools'];

describe('The visual editor chunk', { timeout: 120_000 }, () => {
  let dir: string;
  let assets: Map<string, string>;
  const has = (text: string) => EDITOR_MARKS.filter((m) => text.includes(m));
  // Chunks importing `file` (statically or through import()), not merely naming it in a preload list.
  const importers = (file: string) => {
    const re = new RegExp(`(?:from\\s*|import\\s*\\(\\s*)["\`]\\./${file.replace(/[.$]/g, '\\$&')}["\`]`);
    return [...assets].filter(([, t]) => re.test(t)).map(([f]) => f);
  };

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mailroom-editor-chunk-'));
    const own = config as InlineConfig;
    await build({
      ...own,
      configFile: false,
      plugins: [], // no precompressed copies: they are written next to ui/dist
      logLevel: 'silent',
      build: { ...own.build, outDir: dir, emptyOutDir: true },
    });
    assets = new Map(
      fs
        .readdirSync(path.join(dir, 'assets'))
        .filter((f) => /\.(js|css)$/.test(f))
        .map((f) => [f, fs.readFileSync(path.join(dir, 'assets', f), 'utf8')]),
    );
  });
  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the editor is its own chunk, with its own stylesheet', () => {
    const js = [...assets.keys()].filter((f) => f.endsWith('.js') && has(assets.get(f)!).length > 0);
    assert.equal(js.length, 1, `one chunk holds the editor: ${js.join(', ')}`);
    assert.match(js[0], /^editor-/);
    const css = [...assets.keys()].filter((f) => f.endsWith('.css') && assets.get(f)!.includes('rich-tools'));
    assert.equal(css.length, 1);
    assert.match(css[0], /^editor-/);
  });

  test('the first screen loads none of it', () => {
    const html = fs.readFileSync(path.join(dir, 'index.html'), 'utf8');
    const first = new Set<string>();
    const add = (f: string) => {
      if (first.has(f) || !assets.has(f)) return;
      first.add(f);
      // static imports only: `import{…}from"./x.js"` and `import"./x.js"`, not `import("./x.js")`
      for (const m of assets.get(f)!.matchAll(/(?:from|import)\s*["`]\.\/([\w.-]+)["`]/g)) add(m[1]);
    };
    for (const m of html.matchAll(/assets\/([\w.-]+\.(?:js|css))/g)) add(m[1]);
    assert.ok(
      [...first].some((f) => /^index-.*\.js$/.test(f)),
      `the entry is found: ${[...first].join(', ')}`,
    );
    for (const f of first) assert.deepEqual(has(assets.get(f)!), [], `${f} is loaded first and holds editor code`);
  });

  test('only the Templates and Broadcasts pages import it, on demand', () => {
    const editor = [...assets.keys()].find((f) => /^editor-.*\.js$/.test(f))!;
    const direct = importers(editor);
    assert.ok(direct.length >= 1);
    const pages = new Set<string>();
    for (const f of direct) {
      assert.match(
        assets.get(f)!,
        new RegExp(`import\\(["\`]\\./${editor.replace(/[.$]/g, '\\$&')}["\`]\\)`),
        `${f}: a dynamic import`,
      );
      if (/^(Templates|Broadcasts)-/.test(f)) pages.add(f.split('-')[0]);
      else for (const g of importers(f)) pages.add(g.split('-')[0]);
    }
    assert.deepEqual([...pages].sort(), ['Broadcasts', 'Templates']);
  });
});

test('a template document gets its variables filled in every text, escaped in html fields only', () => {
  const vars = [{ key: 'MONTH', type: 'string' as const, fallback_value: 'This month' }];
  const doc = {
    version: 1,
    settings: { preheader: '{{{MONTH}}} news' },
    blocks: [
      { type: 'heading', id: 'MONTH', text: '{{{MONTH}}} & more', level: 1 },
      { type: 'text', id: 't', html: '<p>{{{MONTH}}} for {{{contact.first_name|there}}}</p>' },
    ],
  };
  const missing = new Set<string>();
  assert.deepEqual(fillDocument(doc, vars, { MONTH: 'May & June' }, missing), {
    version: 1,
    settings: { preheader: 'May & June news' },
    blocks: [
      { type: 'heading', id: 'MONTH', text: 'May & June & more', level: 1 },
      { type: 'text', id: 't', html: '<p>May &amp; June for {{{contact.first_name|there}}}</p>' },
    ],
  });
  assert.deepEqual([...missing], []);
});

test("the editor offers the server's font stacks and shows its defaults", () => {
  assert.deepEqual(FONTS, [...FONT_STACKS]);
  assert.deepEqual(DEFAULTS, DEFAULT_SETTINGS);
});
