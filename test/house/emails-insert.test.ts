// One way in for every email (STYLE habit 12): only src/store/emails.ts writes rows into `emails`,
// so that every email, one or a page, is accepted by emails/accept.ts and committed by that file.
// Read from the source, so a second INSERT anywhere else under src/ fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { SRC } from '../helpers/root.js';
const THE_FILE = path.join(SRC, 'store', 'emails.ts');
const INSERT_INTO_EMAILS = /insert\s+into\s+emails\b/i;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? files(p) : /\.(ts|sql|js)$/.test(p) ? [p] : [];
  });
}

test('the pattern finds an insert into emails however it is spaced, and not one into email_events', () => {
  assert.ok(INSERT_INTO_EMAILS.test('INSERT INTO emails (id)'));
  assert.ok(INSERT_INTO_EMAILS.test('insert   into\n   emails(id)'));
  assert.ok(!INSERT_INTO_EMAILS.test('INSERT INTO email_events (id)'));
  assert.ok(!INSERT_INTO_EMAILS.test('INSERT INTO emails_archive (id)'));
});

test('src/store/emails.ts is the only file under src/ that inserts into emails', () => {
  const others = files(SRC).filter((f) => f !== THE_FILE && INSERT_INTO_EMAILS.test(fs.readFileSync(f, 'utf8')));
  assert.deepEqual(
    others.map((f) => path.relative(SRC, f)),
    [],
    'insert emails through emails/accept.ts and store/emails.ts',
  );
  assert.ok(INSERT_INTO_EMAILS.test(fs.readFileSync(THE_FILE, 'utf8')), 'store/emails.ts still holds the insert');
});
