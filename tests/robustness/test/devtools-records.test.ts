/**
 * Issue 26: the run viewer reads recording files as untrusted input. Whatever bytes a file holds, `RecordTail`
 * never throws, yields exactly one row per completed line (a record, or an error row saying why), and never lets a
 * record's keys reach a prototype. What `devtoolsListener` writes for any event, however large or odd, reads back
 * as a record within its size bound.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunEvent } from '@org/core';
import { devtoolsListener, RecordTail } from '@org/devtools';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { NUM_RUNS } from './support/run-helpers.js';

const root = mkdtempSync(join(tmpdir(), 'robustness-devtools-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;
const freshDir = (): string => join(root, String(counter++));

const MAX_LINE = 2048;
const validLine = JSON.stringify({
  v: 1,
  seq: 0,
  recordedAt: 0,
  event: { type: 'run-started', timestamp: 0, runId: 'r' },
});

/** Lines that are nearly records, records with hostile keys, and noise. */
const line = fc.oneof(
  fc.constant(validLine),
  fc.string({ maxLength: 200 }).map((text) => text.replaceAll('\n', ' ')),
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc
    .record({
      v: fc.oneof(fc.constant(1), fc.jsonValue({ maxDepth: 1 })),
      seq: fc.oneof(fc.nat(), fc.string()),
      recordedAt: fc.nat(),
      event: fc.dictionary(
        fc.constantFrom('type', 'timestamp', 'runId', '__proto__', 'constructor'),
        fc.jsonValue({ maxDepth: 2 }),
      ),
    })
    .map((value) => JSON.stringify(value)),
  fc.nat({ max: 3000 }).map((length) => 'x'.repeat(length)),
);

describe('RecordTail on hostile files', () => {
  it('property: whatever a recording file holds, the viewer reads one row per completed line and never throws', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 12 }),
        fc.uint8Array({ maxLength: 64 }),
        async (lines, noise) => {
          const dir = freshDir();
          const tail = new RecordTail(dir, MAX_LINE);
          mkdirSync(dir, { recursive: true });
          const text = Buffer.concat([
            Buffer.from(lines.map((item) => `${item}\n`).join('')),
            Buffer.from(noise),
          ]);
          const completed = text.filter((byte) => byte === 0x0a).length;
          writeFileSync(join(dir, 'a.jsonl'), text);
          const rows = [...(await tail.poll()), ...(await tail.poll())];
          expect(rows).toHaveLength(completed);
          for (const row of rows) {
            if (row.kind === 'record') {
              expect(typeof row.record.event.type).toBe('string');
              expect(row.record.v).toBe(1);
            } else {
              expect(row.message.length).toBeGreaterThan(0);
            }
          }
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('devtoolsListener on odd events', () => {
  it('property: devtoolsListener writes any event, however large or odd, as a record that reads back within its bound', async () => {
    const types = ['run-started', 'tool-call-started', 'tool-call-finished', 'inference-finished'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            type: fc.constantFrom(...types),
            runId: fc.string({ maxLength: 300 }),
            payload: fc.jsonValue({ maxDepth: 6 }),
            big: fc.nat({ max: 40_000 }),
          }),
          { maxLength: 8 },
        ),
        async (events) => {
          const dir = freshDir();
          const listener = devtoolsListener({ dir, maxRecordBytes: 4096, maxStringBytes: 512 });
          for (const { type, runId, payload, big } of events) {
            listener({
              type,
              timestamp: 1,
              runId,
              action: { id: 'a', toolName: 't', args: { payload, filler: 'y'.repeat(big) } },
              observation: {
                actionId: 'a',
                toolName: 't',
                status: 'success',
                output: payload,
                durationMs: 1,
              },
            } as unknown as RunEvent);
          }
          listener.close();
          expect(listener.failedWrites).toBe(0);
          const rows = await new RecordTail(dir, 4096).poll();
          expect(rows.map((row) => row.kind)).toEqual(events.map(() => 'record'));
          expect(rows.map((row) => (row.kind === 'record' ? row.record.event.type : ''))).toEqual(
            events.map((event) => event.type),
          );
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
