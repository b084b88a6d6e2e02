import { appendFileSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type DevtoolsRow, RecordTail } from './index.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'devtools-tail-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const record = (seq: number, runId = 'r'): string =>
  JSON.stringify({ v: 1, seq, recordedAt: seq, event: { type: 'run-started', timestamp: seq, runId } });

const summary = (rows: DevtoolsRow[]): string[] =>
  rows.map((row) =>
    row.kind === 'record'
      ? `${row.source}:${row.line} record ${row.record.seq}`
      : `${row.source}:${row.line} ${row.message}`,
  );

describe('RecordTail', () => {
  it('has no rows for a directory that does not exist yet', async () => {
    expect(await new RecordTail(join(tempDir(), 'missing'), 1024).poll()).toEqual([]);
  });

  it('reads a line only once its newline is written, across polls and files', async () => {
    const dir = tempDir();
    const tail = new RecordTail(dir, 4096);
    writeFileSync(join(dir, 'a.jsonl'), `${record(0)}\n${record(1).slice(0, 20)}`);
    writeFileSync(join(dir, 'ignored.txt'), 'not a recording\n');
    expect(summary(await tail.poll())).toEqual(['a.jsonl:1 record 0']);
    appendFileSync(join(dir, 'a.jsonl'), `${record(1).slice(20)}\n`);
    writeFileSync(join(dir, 'b.jsonl'), `${record(7)}\n`);
    expect(summary(await tail.poll())).toEqual(['a.jsonl:2 record 1', 'b.jsonl:1 record 7']);
    expect(await tail.poll()).toEqual([]);
  });

  it('turns each corrupt line into an error row and goes on reading', async () => {
    const dir = tempDir();
    const lines = [
      '{"v":1,"seq":0',
      '',
      '[1,2,3]',
      JSON.stringify({ v: 2, seq: 0, recordedAt: 0, event: { type: 'run-started', timestamp: 0 } }),
      JSON.stringify({ v: 1, seq: 0, recordedAt: 0, event: { type: 7, timestamp: 0 } }),
      JSON.stringify({ v: 1, seq: 0, recordedAt: 0, event: { type: 'x', timestamp: 0, runId: {} } }),
      '{"v":1,"v":2}',
      `${'['.repeat(100)}${']'.repeat(100)}`,
      record(9),
    ];
    writeFileSync(join(dir, 'c.jsonl'), `${lines.join('\n')}\n`);
    appendFileSync(join(dir, 'c.jsonl'), Buffer.from([0xff, 0xfe, 0x0a]));
    const rows = summary(await new RecordTail(dir, 4096).poll());
    expect(rows).toHaveLength(10);
    expect(rows[0]).toMatch(/^c\.jsonl:1 not valid JSON: /);
    expect(rows[1]).toBe('c.jsonl:2 an empty line');
    expect(rows[2]).toMatch(/^c\.jsonl:3 not a JSON object/);
    expect(rows[3]).toMatch(/^c\.jsonl:4 record format 2, expected 1/);
    expect(rows[4]).toMatch(/^c\.jsonl:5 'event.type' is not a string/);
    expect(rows[5]).toMatch(/^c\.jsonl:6 'event.runId' is not a string/);
    expect(rows[6]).toMatch(/^c\.jsonl:7 not valid JSON: the property "v" appears twice/);
    expect(rows[7]).toMatch(/^c\.jsonl:8 not valid JSON: nested more than 64/);
    expect(rows[8]).toBe('c.jsonl:9 record 9');
    expect(rows[9]).toBe('c.jsonl:10 the line is not valid UTF-8');
  });

  it('skips a line longer than the limit, even one that arrives in pieces, and reads the next', async () => {
    const dir = tempDir();
    const file = join(dir, 'd.jsonl');
    const tail = new RecordTail(dir, 1024);
    writeFileSync(file, `${record(0)}\n${'x'.repeat(800)}`);
    expect(summary(await tail.poll())).toEqual(['d.jsonl:1 record 0']);
    appendFileSync(file, 'y'.repeat(800));
    const [error] = await tail.poll();
    expect(error).toMatchObject({ kind: 'error', line: 2 });
    expect(error?.kind === 'error' && error.message).toMatch(/longer than 1024 bytes; skipped/);
    appendFileSync(file, `${'z'.repeat(5000)}\n${record(2)}\n`);
    expect(summary(await tail.poll())).toEqual(['d.jsonl:3 record 2']);
    writeFileSync(join(dir, 'e.jsonl'), `${'w'.repeat(3000)}\n`);
    expect(summary(await tail.poll())[0]).toMatch(/^e\.jsonl:1 the line is longer than 1024 bytes/);
  });

  it('says so when a file shrinks, and reads it again from the start', async () => {
    const dir = tempDir();
    const file = join(dir, 'f.jsonl');
    const tail = new RecordTail(dir, 4096);
    writeFileSync(file, `${record(0)}\n${record(1)}\n`);
    expect(await tail.poll()).toHaveLength(2);
    truncateSync(file, 0);
    appendFileSync(file, `${record(5)}\n`);
    expect(summary(await tail.poll())).toEqual([
      `f.jsonl:2 the file shrank from ${2 * (record(0).length + 1)} to ${record(5).length + 1} bytes (rewritten or truncated); reading it again from the start`,
      'f.jsonl:1 record 5',
    ]);
  });
});
