// Entry point: hands argv to the CLI.
import { runCli } from './cli/index.js';

runCli(process.argv.slice(2)).then((code) => { process.exitCode = code; }, (err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 1;
});
