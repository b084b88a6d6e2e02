import { describe, expect, it, vi } from 'vitest';
import { createRedactingLogger, type LogFunction, type ProviderLogger, registerSecret } from './index.js';

const SECRET = 'logger-test-secret-0123456789';
registerSecret(SECRET);

type Line = { level: string; args: unknown[] };

/** A logger that records what reaches it, as a class so that `this` must be kept. */
class RecordingLogger implements ProviderLogger {
  readonly lines: Line[] = [];
  #write(level: string, args: unknown[]): void {
    this.lines.push({ level, args });
  }
  error: LogFunction = function (this: RecordingLogger, ...args: unknown[]) {
    this.#write('error', args);
  };
  warn: LogFunction = function (this: RecordingLogger, ...args: unknown[]) {
    this.#write('warn', args);
  };
  info: LogFunction = function (this: RecordingLogger, ...args: unknown[]) {
    this.#write('info', args);
  };
  debug: LogFunction = function (this: RecordingLogger, ...args: unknown[]) {
    this.#write('debug', args);
  };
}

describe('createRedactingLogger', () => {
  it('redacts registered secrets and credential shapes from the message and every string argument', () => {
    const base = new RecordingLogger();
    const logger = createRedactingLogger(base);
    logger.debug(`request with key ${SECRET}`, 'Bearer sk-proj-abcdefghijklmnopqrstuvwxyz012345', 3);
    expect(base.lines).toHaveLength(1);
    const [line] = base.lines;
    expect(line?.level).toBe('debug');
    expect(JSON.stringify(line?.args)).not.toContain(SECRET);
    expect(JSON.stringify(line?.args)).not.toContain('sk-proj-abcdefghijklmnopqrstuvwxyz012345');
    expect(line?.args[0]).toBe('request with key [REDACTED]');
    expect(line?.args[2]).toBe(3);
  });

  it('replaces the value of every credential-named header or field, whatever it holds', () => {
    const base = new RecordingLogger();
    createRedactingLogger(base).info('headers', {
      headers: { 'x-proxy-token': 'short', 'content-type': 'application/json' },
    });
    expect(base.lines[0]?.args[1]).toEqual({
      headers: { 'x-proxy-token': '[REDACTED]', 'content-type': 'application/json' },
    });
  });

  it('redacts an object logged as the first argument instead of flattening it (the AWS SDK does this)', () => {
    const base = new RecordingLogger();
    createRedactingLogger(base).warn({ commandName: 'ConverseCommand', input: { apiKey: 'abc' } } as never);
    expect(base.lines[0]?.args[0]).toEqual({
      commandName: 'ConverseCommand',
      input: { apiKey: '[REDACTED]' },
    });
  });

  it('logs an error with its message, stack and fields, all redacted', () => {
    const base = new RecordingLogger();
    const error = Object.assign(new Error(`401 Incorrect API key provided: ${SECRET}`), { status: 401 });
    createRedactingLogger(base).error('request failed', error);
    const logged = base.lines[0]?.args[1] as { message: string; stack: string; status: number };
    expect(logged.message).toBe('401 Incorrect API key provided: [REDACTED]');
    expect(logged.stack).not.toContain(SECRET);
    expect(logged.status).toBe(401);
  });

  it('wraps trace only when the base logger has one', () => {
    const base = new RecordingLogger();
    expect(createRedactingLogger(base).trace).toBeUndefined();
    const traced: string[] = [];
    const withTrace = createRedactingLogger({
      ...base,
      trace: (message) => {
        traced.push(message);
      },
    });
    withTrace.trace?.(`trace ${SECRET}`);
    expect(traced).toEqual(['trace [REDACTED]']);
  });

  it('defaults to console, trace included', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const logger = createRedactingLogger();
      expect(Object.keys(logger).sort()).toEqual(['debug', 'error', 'info', 'trace', 'warn']);
      logger.warn(`retrying with ${SECRET}`);
      expect(warn).toHaveBeenCalledWith('retrying with [REDACTED]');
    } finally {
      warn.mockRestore();
    }
  });
});
