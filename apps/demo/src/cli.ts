#!/usr/bin/env node
import { runDemo } from './run-demo.js';

// Ctrl-C stops the run in progress so that the MCP servers it started are closed; a second Ctrl-C exits at once.
const stop = new AbortController();
const onSignal = (signal: NodeJS.Signals): void => {
  stop.abort(new Error(`stopped by ${signal}`));
};
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
const outcome = await runDemo(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  environment: process.env,
  cwd: process.cwd(),
  isTTY: process.stdout.isTTY === true,
  signal: stop.signal,
});
process.off('SIGINT', onSignal);
process.off('SIGTERM', onSignal);
process.exitCode = outcome.exitCode;
