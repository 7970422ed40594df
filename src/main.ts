// Entry point: hands argv to the CLI.
import { runCli } from './cli/index.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    // Whatever was thrown (a library once rejected with undefined), say something and fail.
    const message =
      err instanceof Error ? err.message || err.name : err === undefined ? 'failed (no reason given)' : String(err);
    process.stderr.write(`mailroom: ${message}\n`);
    process.exitCode = 1;
  },
);
