import { DEFAULT_DEVTOOLS_DIR } from './devtools-record.js';
import { DEFAULT_DEVTOOLS_PORT } from './devtools-server.js';
import { DevtoolsOptionError } from './errors.js';

/** The usage text of `npx @org/devtools --help`. */
export const DEVTOOLS_USAGE = `Usage: npx @org/devtools [options]

Serves the run viewer on this machine: the runs devtoolsListener() recorded, and live the ones being recorded.

Options:
  --dir <dir>     The recording directory (default: ${DEFAULT_DEVTOOLS_DIR})
  --port <port>   The port to listen on (default: ${DEFAULT_DEVTOOLS_PORT}; 0 picks a free one)
  --host <host>   The address to listen on (default: 127.0.0.1)
  --help          Show this text

Stop with Ctrl-C.
`;

/** The viewer's command line, parsed. */
export interface DevtoolsCliArguments {
  readonly dir?: string;
  readonly port?: number;
  readonly host?: string;
  readonly help: boolean;
}

/**
 * Parses `--dir`, `--port`, `--host` (`--flag value` or `--flag=value`) and `--help`; anything else is a
 * `DevtoolsOptionError` naming the argument.
 *
 * @example
 * parseDevtoolsArguments(['--port', '0']); // { port: 0, help: false }
 */
export function parseDevtoolsArguments(argv: readonly string[]): DevtoolsCliArguments {
  const values = new Map<string, string>();
  let help = false;
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index] ?? '';
    if (argument === '--') continue;
    if (argument === '--help' || argument === '-h') {
      help = true;
      continue;
    }
    const [flag = '', inline] = argument.split(/=(.*)/s, 2);
    if (flag !== '--dir' && flag !== '--port' && flag !== '--host') {
      throw new DevtoolsOptionError({
        option: argument,
        message: `unknown argument '${argument}'. See --help.`,
      });
    }
    const value = inline ?? argv[index + 1];
    if (inline === undefined) index += 1;
    if (value === undefined || value === '' || value.startsWith('--')) {
      throw new DevtoolsOptionError({ option: flag, message: `${flag} needs a value. See --help.` });
    }
    values.set(flag, value);
  }
  const port = values.get('--port');
  if (port !== undefined && !/^\d{1,5}$/.test(port)) {
    throw new DevtoolsOptionError({ option: '--port', message: `--port must be a number; got '${port}'.` });
  }
  const dir = values.get('--dir');
  const host = values.get('--host');
  return {
    help,
    ...(dir === undefined ? {} : { dir }),
    ...(port === undefined ? {} : { port: Number(port) }),
    ...(host === undefined ? {} : { host }),
  };
}
