import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@org/core';
import { afterEach, describe, expect, it } from 'vitest';
import { LEAKED_KEY, recordPlanRun, recordWeatherRun } from '../test/fixtures/record-runs.js';
import { DevtoolsOptionError, type DevtoolsRecord, devtoolsListener, readRow } from './index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'devtools-listener-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function recordsOf(file: string): DevtoolsRecord[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line, index) => {
      const row = readRow(line, 'test', index + 1, 1 << 20);
      if (row.kind !== 'record') throw new Error(row.message);
      return row.record;
    });
}

describe('devtoolsListener', () => {
  it('records every event of a run in order, one strict JSON line each, in a file of its own', async () => {
    const dir = tempDir();
    const listener = devtoolsListener({ dir, now: () => 1000 });
    const result = await recordWeatherRun(listener, 'run-weather');
    listener.close();
    expect(readdirSync(dir)).toEqual([listener.file.slice(dir.length + 1)]);
    const records = recordsOf(listener.file);
    expect(records.map((record) => record.seq)).toEqual(records.map((_, index) => index));
    expect(records.every((record) => record.recordedAt === 1000 && record.v === 1)).toBe(true);
    const types = records.map((record) => record.event.type);
    expect(types[0]).toBe('run-started');
    expect(types.at(-1)).toBe('run-finished');
    expect(types.filter((type) => type === 'inference-started')).toHaveLength(2);
    expect(types.filter((type) => type === 'tool-call-finished')).toHaveLength(2);
    expect(types).toContain('text-delta');
    expect(records.every((record) => record.event.runId === 'run-weather')).toBe(true);
    const finished = records.at(-1)?.event as Extract<RunEvent, { type: 'run-finished' }>;
    expect(finished.usage).toEqual(result.usage);
    expect(listener.recorded).toBe(records.length);
    expect(listener.failedWrites).toBe(0);
  });

  it('redacts secrets a tool returned before they reach the file', async () => {
    const dir = tempDir();
    const listener = devtoolsListener({ dir });
    await recordPlanRun(listener, 'run-plan');
    listener.close();
    const text = readFileSync(listener.file, 'utf8');
    expect(text).not.toContain(LEAKED_KEY);
    expect(text).toContain('[REDACTED]');
    expect(text).toContain('"plan-step-finished"');
  });

  it('cuts a long string to maxStringBytes and lists the cut in the record', () => {
    const dir = tempDir();
    const listener = devtoolsListener({ dir, maxStringBytes: 256 });
    listener({
      type: 'tool-call-finished',
      timestamp: 1,
      runId: 'r',
      observation: {
        actionId: 'a',
        toolName: 't',
        status: 'success',
        output: 'x'.repeat(10_000),
        durationMs: 1,
      },
    });
    listener.close();
    const [record] = recordsOf(listener.file);
    const event = record?.event as Extract<RunEvent, { type: 'tool-call-finished' }>;
    const output = event.observation.output;
    expect(typeof output === 'string' && output.length <= 256 && output.includes('truncated')).toBe(true);
    expect(record?.truncated).toEqual(['observation.output: 256 of 10000 bytes']);
  });

  it('keeps only the type, run and time of an event too big for maxRecordBytes, and says so', () => {
    const dir = tempDir();
    const listener = devtoolsListener({ dir, maxRecordBytes: 1024, maxStringBytes: 256 });
    const output = Array.from({ length: 400 }, (_, index) => `item ${index}`);
    listener({
      type: 'tool-call-finished',
      timestamp: 5,
      runId: 'r',
      observation: { actionId: 'a', toolName: 't', status: 'success', output, durationMs: 1 },
    });
    listener.close();
    const line = readFileSync(listener.file, 'utf8').trimEnd();
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(1024);
    const [record] = recordsOf(listener.file);
    expect(record?.event).toEqual({ type: 'tool-call-finished', timestamp: 5, runId: 'r' });
    expect(record?.omitted).toContain('did not fit in 1024 bytes');
  });

  it('keeps a __proto__ key a key, and never throws into the run after it is closed', () => {
    const dir = tempDir();
    const listener = devtoolsListener({ dir });
    const args = JSON.parse('{"__proto__": {"polluted": true}, "city": "Oslo"}') as Record<string, unknown>;
    listener({
      type: 'tool-call-started',
      timestamp: 1,
      runId: 'r',
      action: { id: 'a', toolName: 't', args },
    });
    listener.close();
    expect(() => listener({ type: 'run-started', timestamp: 2, runId: 'r' })).not.toThrow();
    expect(listener.failedWrites).toBe(1);
    expect(listener.lastWriteError?.message).toContain('closed');
    expect(readFileSync(listener.file, 'utf8')).toContain('"__proto__":{"polluted":true}');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('records what a wrapped model is asked, redacted, as model-request records of the run', async () => {
    const dir = tempDir();
    const listener = devtoolsListener({ dir });
    await recordWeatherRun(listener, 'run-asked');
    listener.close();
    const requests = recordsOf(listener.file)
      .map((record) => record.event)
      .filter((event) => event.type === 'model-request');
    expect(requests).toHaveLength(2);
    expect(requests.map((event) => (event.type === 'model-request' ? event.method : ''))).toEqual([
      'stream',
      'stream',
    ]);
    const [first, second] = requests as Extract<(typeof requests)[number], { type: 'model-request' }>[];
    expect(first?.runId).toBe('run-asked');
    expect(first?.messages.at(-1)).toMatchObject({ role: 'user', content: 'Is it warmer in Paris or Rome?' });
    expect(first?.tools.map((tool) => tool.name)).toEqual(['get_weather', 'compare_temperatures']);
    // The second request holds the tools' results, whose key was redacted before it was written.
    expect(second?.messages.filter((message) => message.role === 'tool')).toHaveLength(2);
    expect(readFileSync(listener.file, 'utf8')).not.toContain(LEAKED_KEY);
  });

  it('refuses options it cannot honour with a DevtoolsOptionError naming the option', () => {
    const dir = tempDir();
    for (const [options, option] of [
      [{ maxRecordBytes: 10 }, 'maxRecordBytes'],
      [{ maxStringBytes: 1.5 }, 'maxStringBytes'],
      [{ fileName: '../escape.jsonl' }, 'fileName'],
      [{ fileName: 'runs.txt' }, 'fileName'],
    ] as const) {
      const error = (() => {
        try {
          devtoolsListener({ dir, ...options });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(DevtoolsOptionError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ code: 'invalid_devtools_option', option });
    }
  });
});
