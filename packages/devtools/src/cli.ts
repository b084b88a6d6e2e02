#!/usr/bin/env node
import { errorMessageOf } from '@org/core';
import { DEVTOOLS_USAGE, parseDevtoolsArguments } from './cli-arguments.js';
import { startDevtoolsServer } from './devtools-server.js';

try {
  const parsed = parseDevtoolsArguments(process.argv.slice(2));
  if (parsed.help) {
    process.stdout.write(DEVTOOLS_USAGE);
  } else {
    const server = await startDevtoolsServer(parsed);
    process.stdout.write(
      `org devtools: ${server.url} (showing ${parsed.dir ?? '.org-devtools'}; Ctrl-C to stop)\n`,
    );
    const stop = (): void => {
      void server.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
} catch (error) {
  process.stderr.write(`org devtools: ${errorMessageOf(error)}\n`);
  process.exitCode = 1;
}
