import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MODES, runDemo } from '../src/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'org-demo-ui-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

interface Row {
  kind: string;
  record?: { event: { type: string; runId?: string; reason?: string; messages?: unknown[] } };
}

describe('org-demo --ui', () => {
  it('records every run, serves them in the viewer while they run, and stops on the signal', async () => {
    const stop = new AbortController();
    let stdout = '';
    let announced: (url: string) => void = () => {};
    const url = new Promise<string>((resolve) => {
      announced = resolve;
    });
    const outcome = runDemo(['--', '--ui', '--ui-port', '0', '--task', 'weather', '--quiet', '--out', cwd], {
      stdout: (text) => {
        stdout += text;
        const match = /Run viewer: (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stdout);
        if (match?.[1] !== undefined) announced(match[1]);
      },
      stderr: () => {},
      environment: {},
      cwd,
      signal: stop.signal,
    });
    try {
      const viewer = await url;
      // The viewer serves until the signal: wait for the demo to say so, and for the viewer to read the last run.
      await expect.poll(() => stdout, { timeout: 60_000 }).toContain('serving until Ctrl-C');
      const rowsShown = async (): Promise<Row[]> =>
        ((await (await fetch(`${viewer}rows`)).json()) as { rows: Row[] }).rows;
      const finishedOf = (rows: Row[]) => rows.filter((row) => row.record?.event.type === 'run-finished');
      // The weather task runs once in every mode.
      await expect.poll(async () => finishedOf(await rowsShown()).length).toBe(MODES.length);
      const rows = await rowsShown();
      expect(rows.filter((row) => row.kind !== 'record')).toEqual([]);
      const finished = finishedOf(rows);
      expect(finished.map((row) => row.record?.event.reason)).toEqual(MODES.map(() => 'final-answer'));
      expect(new Set(finished.map((row) => row.record?.event.runId)).size).toBe(MODES.length);
      expect(rows.some((row) => row.record?.event.type === 'plan-step-finished')).toBe(true);
      // Each model call's request (its messages) is recorded under its run, one per model call.
      for (const runId of finished.map((row) => row.record?.event.runId)) {
        const ofRun = (type: string) =>
          rows.filter((row) => row.record?.event.type === type && row.record.event.runId === runId);
        const requests = ofRun('model-request');
        expect(requests.length).toBe(ofRun('inference-started').length);
        expect(requests[0]?.record?.event.messages?.length).toBeGreaterThan(0);
      }
    } finally {
      stop.abort(new Error('test done'));
    }
    expect((await outcome).exitCode).toBe(0);
    const viewer = await url;
    await expect(fetch(viewer)).rejects.toThrow();
  });

  it('refuses --ui-port without --ui', async () => {
    let stderr = '';
    const outcome = await runDemo(['--ui-port', '0'], {
      stdout: () => {},
      stderr: (text) => {
        stderr += text;
      },
      environment: {},
      cwd,
    });
    expect(outcome.exitCode).toBe(2);
    expect(stderr).toContain('--ui-port applies to --ui');
  });
});
