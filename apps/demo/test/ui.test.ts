// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's innerText is what a person sees (CSS applied); these are not DOM nodes
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODES, runDemo } from '../src/index.js';

const cwd = mkdtempSync(join(tmpdir(), 'org-demo-ui-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

// The page is checked in Debian's chromium, as @org/devtools' own browser tests do: installed from apt when missing.
beforeAll(() => {
  execFileSync('bash', [fileURLToPath(new URL('../../../scripts/ensure-chromium.sh', import.meta.url))], {
    stdio: 'inherit',
  });
});

/** Opens `url` in headless chromium; requests that leave the machine are refused and listed. */
async function openPage(
  url: string,
): Promise<{ browser: Browser; page: Page; outsideRequests: string[]; pageErrors: string[] }> {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
  });
  const outsideRequests: string[] = [];
  const pageErrors: string[] = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route('**/*', (route) => {
      if (new URL(route.request().url()).hostname === '127.0.0.1') return route.continue();
      outsideRequests.push(route.request().url());
      return route.abort();
    });
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(url);
    return { browser, page, outsideRequests, pageErrors };
  } catch (error) {
    await browser.close();
    throw error;
  }
}

/**
 * What the viewer shows of the demo's weather task in each mode, as a person reads it: every run answered, each model
 * call finished, each tool call succeeded with its result; the plan's timeline with the comparison after the four
 * lookups, on the critical path; the code-mode program's calls as a timeline.
 */
async function checkViewerPage(url: string): Promise<void> {
  const { browser, page, outsideRequests, pageErrors } = await openPage(url);
  try {
    await page.locator('.connection', { hasText: 'live' }).waitFor();
    const runButtons = page.locator('nav ul.runs button');
    await expect.poll(() => runButtons.count()).toBe(MODES.length);
    const seen = { plan: 0, program: 0 };
    for (let index = 0; index < MODES.length; index += 1) {
      const button = runButtons.nth(index);
      expect(await button.innerText()).toContain('final-answer');
      const runId = await button.getAttribute('data-run-id');
      await button.click();
      const main = page.locator('main');
      await main.locator('h2', { hasText: `Run ${runId}` }).waitFor();
      expect(await main.locator('[data-total="status"]').innerText()).toBe('final-answer');
      expect(await main.locator('[data-total="tokens"]').innerText()).toMatch(/^[1-9]\d* tokens/);
      const modelCalls = main.locator('section.model-call');
      expect(await modelCalls.count()).toBeGreaterThan(1);
      for (const text of await modelCalls.allInnerTexts()) {
        expect(text).toMatch(/^Model call \d+ · .+ · finished/);
        expect(text).toContain('Which of Paris, Rome, Oslo and Madrid is the warmest'); // the messages it was sent
      }
      expect(await modelCalls.last().innerText()).toContain('Madrid is the warmest at 27°C');
      const toolCalls = main.locator('section.tool-call');
      expect(await toolCalls.count()).toBeGreaterThan(0);
      for (const text of await toolCalls.allInnerTexts()) {
        expect(text).toMatch(/^\w+ · success · /);
        expect(text).toMatch(/result/i);
      }
      const plan = main.locator('section.plan:not(.program)');
      if ((await plan.count()) > 0) {
        seen.plan += 1;
        // The model writes the plan as execute_tool_plan teaches (a steps object, short `$city` references).
        expect(await plan.locator('.plan-step').count()).toBe(5);
        expect(await plan.locator('.plan-step[data-plan-step="compare"] .deps').innerText()).toBe(
          'after paris, rome, oslo, madrid',
        );
        expect(await plan.locator('.critical-path').innerText()).toMatch(
          /^Critical path: (paris|rome|oslo|madrid) → compare$/,
        );
      }
      const program = main.locator('section.plan.program');
      if ((await program.count()) > 0) {
        seen.program += 1;
        expect(await program.locator('h3').innerText()).toMatch(/^Program .+ · 5 calls · /);
        expect(await program.locator('.critical-path').innerText()).toMatch(/^Critical path: .+ → 5$/);
      }
    }
    expect(seen).toEqual({ plan: 1, program: 1 });
    expect(outsideRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  } finally {
    await browser.close();
  }
}

interface Row {
  kind: string;
  record?: { event: { type: string; runId?: string; reason?: string; messages?: unknown[] } };
}

describe('org-demo --ui', () => {
  it('records every run, shows them in the viewer in a real browser, and stops on the signal', async () => {
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
      await checkViewerPage(viewer);
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
