#!/usr/bin/env node
import { runDemo } from './run-demo.js';

const outcome = await runDemo(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  environment: process.env,
  cwd: process.cwd(),
});
process.exitCode = outcome.exitCode;
