import { describe, expect, it } from 'vitest';
import { DevtoolsOptionError, parseDevtoolsArguments, startDevtoolsServer } from './index.js';

function failure(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('parseDevtoolsArguments', () => {
  it('reads --dir, --port and --host in both spellings, and --help', () => {
    expect(parseDevtoolsArguments(['--', '--dir', 'runs', '--port=0', '--host', '::1'])).toEqual({
      dir: 'runs',
      port: 0,
      host: '::1',
      help: false,
    });
    expect(parseDevtoolsArguments(['--help'])).toEqual({ help: true });
  });

  it('names the argument at fault', () => {
    for (const [argv, option] of [
      [['--prot', '1'], '--prot'],
      [['--port'], '--port'],
      [['--port', '--dir', 'x'], '--port'],
      [['--port', 'eighty'], '--port'],
    ] as const) {
      const error = failure(() => parseDevtoolsArguments(argv));
      expect(DevtoolsOptionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ option });
    }
  });
});

describe('startDevtoolsServer options', () => {
  it('refuses a port that is not one and a poll interval that is not positive, before listening', async () => {
    await expect(startDevtoolsServer({ port: 70_000 })).rejects.toMatchObject({
      code: 'invalid_devtools_option',
      option: 'port',
    });
    await expect(startDevtoolsServer({ port: 0, pollIntervalMs: 0 })).rejects.toMatchObject({
      option: 'pollIntervalMs',
    });
  });

  it('rejects with the listen error when the port is taken', async () => {
    const first = await startDevtoolsServer({ port: 0, dir: 'does-not-exist-devtools' });
    try {
      await expect(
        startDevtoolsServer({ port: first.port, dir: 'does-not-exist-devtools' }),
      ).rejects.toMatchObject({
        code: 'EADDRINUSE',
      });
    } finally {
      await first.close();
    }
  });
});
