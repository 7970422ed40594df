// The test files in the order `npm test` starts them: the longest first (measured on the 2-core
// machine), then every other file in name order. With three files at a time, a long file started
// last kept the run going minutes after the rest had finished; longest-first packs the tail.
// test/house/test-order.test.ts checks that every file named here exists.
import fs from 'node:fs';
import path from 'node:path';
import { OUT } from './build.mjs';

export const LONGEST_FIRST = [
  'test/cluster/cluster.test.ts',
  'test/cli/restart-after-kill.test.ts',
  'test/cli/help-and-errors.test.ts',
  'test/cli/cli.test.ts',
  'test/browser/audiences-rules-imports.test.ts',
  'test/flows/crash.test.ts',
  'test/inbound/mx-shutdown.test.ts',
  'test/browser/inboxes.test.ts',
  'test/browser/automations.test.ts',
  'test/browser/email-editor.test.ts',
  'test/browser/broadcasts-compose.test.ts',
  'test/browser/audiences.test.ts',
  'test/flows/automations-crash.test.ts',
  'test/dashboard/mfa.test.ts',
  'test/cli/secret-key-check.test.ts',
  'test/cli/rolling-restart.test.ts',
  'test/browser/broadcast-review.test.ts',
  'test/cli/running-server.test.ts',
  'test/flows/db-outage.test.ts',
  'test/browser/phone.test.ts',
  'test/browser/automation-canvas.test.ts',
  'test/browser/automation-journey.test.ts',
  'test/browser/privacy.test.ts',
  'test/browser/contacts-find.test.ts',
  'test/browser/team-security.test.ts',
  'test/browser/api-keys-limits.test.ts',
  'test/flows/automations-batch.test.ts',
  'test/browser/dashboard.test.ts',
  'test/cli/concurrent-start.test.ts',
  'test/dashboard/login-throttle.test.ts',
  'test/cli/oauth-clients.test.ts',
  'test/browser/lists.test.ts',
  'test/browser/metrics-errors.test.ts',
  'test/browser/automation-enable.test.ts',
  'test/browser/oauth-consent.test.ts',
  'test/dashboard/sessions.test.ts',
  'test/browser/broadcasts.test.ts',
  'test/browser/receiving-contacts.test.ts',
  'test/dashboard/signup-verification.test.ts',
  'test/browser/insights.test.ts',
  'test/dashboard/password-reset.test.ts',
  'test/browser/emails-words.test.ts',
  'test/maintenance/recurring.test.ts',
  'test/http/api/contacts.imports.test.ts',
  'test/browser/capture-mode.test.ts',
  'test/cli/schema-version.test.ts',
  'test/browser/reputation.test.ts',
];

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? walk(p) : e.name.endsWith('.test.ts') ? [p] : [];
  });
}

export function testFiles(root = '.') {
  const all = walk(path.join(root, 'test')).map((p) => path.relative(root, p).split(path.sep).join('/')).sort();
  const first = LONGEST_FIRST.filter((f) => all.includes(f));
  return [...first, ...all.filter((f) => !first.includes(f))];
}

// `--built`: the same files as npm test runs them, compiled into .test-build/ (test/build.mjs).
const built = (f) => `${OUT}/${f.replace(/\.ts$/, '.js')}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = process.argv.includes('--built') ? testFiles().map(built) : testFiles();
  process.stdout.write(`${files.join('\n')}\n`);
}
