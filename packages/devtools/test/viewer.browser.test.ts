// biome-ignore-all lint/performance/useDomNodeTextContent: playwright's innerText is what a person sees (CSS applied); these are not DOM nodes
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closeCodeSandboxes } from '@org/code-mode';
import type { Page } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { type DevtoolsServer, devtoolsListener, startDevtoolsServer } from '../src/index.js';
import { openBrowser, type TestBrowser } from './browser.js';
import {
  LEAKED_KEY,
  recordApprovalRun,
  recordCodeRun,
  recordFailingRun,
  recordPlanRun,
  recordWeatherRun,
} from './fixtures/record-runs.js';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'devtools-viewer-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function serve(dir: string): Promise<DevtoolsServer> {
  const server = await startDevtoolsServer({ dir, port: 0, pollIntervalMs: 50 });
  cleanups.push(() => server.close());
  return server;
}

async function browse(): Promise<TestBrowser> {
  const browser = await openBrowser();
  cleanups.push(() => browser.close());
  return browser;
}

/** Clicks a run in the list and waits for its page. */
async function openRun(page: Page, runId: string): Promise<void> {
  await page.locator(`nav button[data-run-id="${runId}"]`).click();
  await page.locator('main h2', { hasText: `Run ${runId}` }).waitFor();
}

describe('the run viewer in a real browser', () => {
  it('shows runs recorded before the page opened: model calls, tool calls, the plan timeline, an approval, totals', async () => {
    const dir = tempDir();
    const listener = devtoolsListener({ dir });
    const weather = await recordWeatherRun(listener, 'run-weather');
    const plan = await recordPlanRun(listener, 'run-plan');
    const approval = await recordApprovalRun(listener, 'run-approval');
    listener.close();
    expect([weather.finishReason, plan.finishReason, approval.finishReason]).toEqual([
      'final-answer',
      'final-answer',
      'approval-required',
    ]);

    const server = await serve(dir);
    const { page, outsideRequests, pageErrors } = await browse();
    await page.goto(server.url);
    await page.locator('.connection', { hasText: 'live' }).waitFor();

    // The run list: every run, with its status.
    const list = page.locator('nav ul.runs');
    await expect.poll(() => list.locator('button').count()).toBe(3);
    await expect
      .poll(() => list.locator('button[data-run-id="run-weather"]').innerText())
      .toContain('final-answer');
    expect(await list.locator('button[data-run-id="run-approval"]').innerText()).toContain(
      'waiting for approval',
    );

    // Native function calling: two model calls with their streamed text, two tool calls with their results.
    await openRun(page, 'run-weather');
    const main = page.locator('main');
    const calls = main.locator('section.model-call');
    expect(await calls.count()).toBe(2);
    expect(await calls.nth(0).innerText()).toMatch(/Model call 1 · scripted\/.+ · step 0 · finished/);
    expect(await calls.nth(0).innerText()).toContain('Checking both cities.');
    expect(await calls.nth(0).innerText()).toContain('get_weather({"city":"Paris"})');
    expect(await calls.nth(0).innerText()).toMatch(/tool choice auto/);
    // What the provider did other than asked, with the call it concerns.
    expect(await calls.nth(0).locator('.block', { hasText: 'Adjustments' }).innerText()).toContain(
      "tool-choice-emulated: Tool choice 'auto' is declared emulated",
    );
    expect(await calls.nth(1).innerText()).toContain('Rome is warmer at 24°C.');
    // What each call was asked (the model was wrapped with recordModel): the messages and the tools offered.
    const firstAsked = await calls.nth(0).locator('.request').innerText();
    expect(firstAsked).toContain('user: Is it warmer in Paris or Rome?');
    expect(firstAsked).toContain('get_weather, compare_temperatures');
    const secondAsked = await calls.nth(1).locator('ol.messages li').allInnerTexts();
    expect(
      secondAsked.some((item) => item.startsWith('assistant: Checking both cities. → get_weather(')),
    ).toBe(true);
    expect(secondAsked.filter((item) => item.startsWith('tool (get_weather): '))).toHaveLength(2);
    const tools = main.locator('section.tool-call');
    expect(await tools.count()).toBe(2);
    for (const [index, city, temperature] of [
      [0, 'Paris', 18],
      [1, 'Rome', 24],
    ] as const) {
      const text = await tools.nth(index).innerText();
      expect(text).toMatch(/^get_weather · success · \d+ ms/);
      expect(text).toContain(`"city": "${city}"`);
      expect(text).toContain(`"temperatureC": ${temperature}`);
    }
    // Secrets a tool returned were redacted before they were written.
    expect(await main.innerText()).not.toContain(LEAKED_KEY);
    expect(await main.innerText()).toContain('[REDACTED]');
    expect(await main.locator('[data-total="tokens"]').innerText()).toBe(
      `${weather.usage.totalTokens} tokens (${weather.usage.inputTokens} in, ${weather.usage.outputTokens} out)`,
    );
    // Paris (300 ms) and Rome (500 ms) ran at once on the run's clock: the run took the longer of the two.
    expect(await main.locator('[data-total="time"]').innerText()).toMatch(/^\d+ ms$/);

    // Plan mode: the timeline of steps, the critical path marked (Rome took longer than Paris; compare waited).
    await openRun(page, 'run-plan');
    const planSection = main.locator('section.plan');
    expect(await planSection.locator('.critical-path').innerText()).toBe('Critical path: rome → compare');
    expect(await planSection.locator('.plan-step').count()).toBe(3);
    expect(
      await planSection
        .locator('.plan-step.critical')
        .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-plan-step'))),
    ).toEqual(['rome', 'compare']);
    expect(await planSection.locator('.plan-step[data-plan-step="compare"]').innerText()).toContain(
      'after paris, rome',
    );
    expect(await planSection.locator('.plan-step[data-plan-step="paris"]').innerText()).toMatch(
      /paris · get_weather · success · 300 ms/,
    );
    // The bars: Paris and Rome start together, compare starts where Rome ends; Rome's bar is red (critical).
    const bar = async (stepId: string) => {
      const box = await planSection.locator(`.plan-step[data-plan-step="${stepId}"] .bar`).boundingBox();
      if (box === null) throw new Error(`no bar for ${stepId}`);
      return box;
    };
    const [paris, rome, compare] = [await bar('paris'), await bar('rome'), await bar('compare')];
    expect(paris.width).toBeGreaterThan(50);
    expect(Math.abs(paris.x - rome.x)).toBeLessThan(2);
    expect(rome.width / paris.width).toBeCloseTo(5 / 3, 1);
    expect(Math.abs(compare.x - (rome.x + rome.width))).toBeLessThan(2);
    expect(await planSection.locator('.plan-step[data-plan-step="rome"] .bar.critical').count()).toBe(1);
    expect(await planSection.locator('.plan-step[data-plan-step="paris"] .bar.critical').count()).toBe(0);
    const planCall = await main.locator('section.tool-call', { hasText: 'execute_tool_plan' }).innerText();
    expect(planCall).toContain('3 of 3 steps succeeded.');
    expect(planCall).toContain('"id": "compare"'); // the plan as the model wrote it (it streamed)
    await page.screenshot({ path: screenshotPath() });

    // The paused run: its pending approval, with the arguments a person approves.
    await openRun(page, 'run-approval');
    const pending = main.locator('section.approvals');
    expect(await pending.innerText()).toContain('pay is waiting for approval');
    expect(await pending.innerText()).toContain('"amount": 42');
    expect(await main.locator('[data-total="status"]').innerText()).toBe('waiting for approval');

    expect(outsideRequests).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('shows a code-mode program as a timeline of its calls, the chain that bounds its time marked', async () => {
    cleanups.push(() => closeCodeSandboxes());
    const dir = tempDir();
    const listener = devtoolsListener({ dir });
    const code = await recordCodeRun(listener, 'run-code');
    listener.close();
    expect(code.finishReason).toBe('final-answer');
    const codeCallId = code.steps[0]?.toolCalls[0]?.id as string;

    const server = await serve(dir);
    const { page, pageErrors } = await browse();
    await page.goto(server.url);
    await openRun(page, 'run-code');
    const program = page.locator(`main section.plan.program[data-plan-id="${codeCallId}"]`);
    expect(await program.locator('h3').innerText()).toMatch(
      new RegExp(`^Program ${codeCallId} · 3 calls · \\d+ ms$`),
    );
    // Paris (300 ms) and Rome (500 ms, real timers) at once, then compare: the program's time is Rome's then compare's.
    expect(await program.locator('.critical-path').innerText()).toBe('Critical path: 2 → 3');
    expect(await program.locator('.plan-step[data-plan-step="1"]').innerText()).toMatch(
      /^1 · get_weather · success · \d+ ms/,
    );
    expect(await program.locator('.plan-step[data-plan-step="2"]').innerText()).toMatch(
      /^★ 2 · get_weather · success · \d+ ms/,
    );
    expect(await program.locator('.plan-step[data-plan-step="3"]').innerText()).toContain(
      'after 2 (by time)',
    );
    const bar = async (stepId: string) => {
      const box = await program.locator(`.plan-step[data-plan-step="${stepId}"] .bar`).boundingBox();
      if (box === null) throw new Error(`no bar for ${stepId}`);
      return box;
    };
    const [paris, rome, compare] = [await bar('1'), await bar('2'), await bar('3')];
    // Side by side: Rome starts while Paris runs (a few ms after it: each call crosses from the sandbox's worker).
    expect(rome.x).toBeGreaterThanOrEqual(paris.x - 1);
    expect(rome.x).toBeLessThan(paris.x + paris.width);
    expect(rome.width).toBeGreaterThan(paris.width);
    expect(compare.x).toBeGreaterThanOrEqual(rome.x + rome.width - 2);
    expect(await program.locator('.bar.critical').count()).toBe(2);
    expect(await program.locator('.plan-step[data-plan-step="1"] .bar.critical').count()).toBe(0);
    // The code call itself is still a tool call with its result; its calls are not listed as progress.
    const codeCall = await page.locator('main section.tool-call', { hasText: 'run_code' }).innerText();
    expect(codeCall).toMatch(/^run_code · success · /);
    expect(codeCall).toContain('Rome'); // the program's return value, in the result the model read
    expect(codeCall).not.toContain('Progress');
    expect(pageErrors).toEqual([]);
  });

  it('shows a run live while it is recorded, and a corrupt line as an error row without losing the rest', async () => {
    const dir = tempDir();
    const server = await serve(dir);
    const { page, pageErrors } = await browse();
    await page.goto(server.url);
    await page.locator('.connection', { hasText: 'live' }).waitFor();
    await page.getByText('No runs recorded yet').waitFor();

    const listener = devtoolsListener({ dir });
    cleanups.push(() => listener.close());
    const result = await recordPlanRun(listener, 'run-live');
    await page.locator('nav button[data-run-id="run-live"]', { hasText: 'final-answer' }).waitFor();
    await openRun(page, 'run-live');
    await expect
      .poll(() => page.locator('main .critical-path').innerText())
      .toBe('Critical path: rome → compare');
    expect(await page.locator('main [data-total="tokens"]').innerText()).toContain(
      `${result.usage.totalTokens} tokens`,
    );

    // A run that fails shows how: its status, and the model call that failed with the provider's error.
    const failed = await recordFailingRun(listener, 'run-failed');
    expect(failed.finishReason).toBe('error');
    await page.locator('nav button[data-run-id="run-failed"]', { hasText: 'error' }).waitFor();
    await openRun(page, 'run-failed');
    expect(await page.locator('main section.model-call').innerText()).toMatch(
      /Model call 1 · scripted\/.+ · failed[\s\S]*rate_limited: .*Too many requests\./,
    );
    expect(await page.locator('main [data-total="status"]').innerText()).toBe('error');

    mkdirSync(dir, { recursive: true });
    appendFileSync(join(dir, 'hand-edited.jsonl'), '{"v":1,"seq":0,"recordedAt":\n');
    const errors = page.locator('nav .error-rows');
    await errors.waitFor();
    expect(await errors.innerText()).toContain('Unreadable lines (1)');
    expect(await errors.innerText()).toContain('hand-edited.jsonl:1: not valid JSON');
    // The server goes on serving: the page still shows the run.
    expect(await page.locator('nav button[data-run-id="run-live"]').count()).toBe(1);
    expect(pageErrors).toEqual([]);
  });

  it('refuses a request whose Host is not this machine (DNS rebinding), and serves only GET', async () => {
    const server = await serve(tempDir());
    expect(await statusWithHost(server, 'evil.example')).toBe(403);
    expect(await statusWithHost(server, `127.0.0.1:${server.port}`)).toBe(200);
    const post = await fetch(`${server.url}rows`, { method: 'POST' });
    expect(post.status).toBe(405);
    const page = await fetch(server.url);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await page.text()).toContain('<script src="app.js"></script>');
  });
});

/** The status of a GET of the page with the given Host header (fetch does not let a caller set it). */
function statusWithHost(server: DevtoolsServer, host: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const request = httpGet(
      { host: '127.0.0.1', port: server.port, path: '/', headers: { host } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode));
      },
    );
    request.on('error', reject);
  });
}

/** docs/devtools.png when UPDATE_SCREENSHOT=1 (run by hand to refresh the docs), a temporary file otherwise. */
function screenshotPath(): string {
  if (process.env.UPDATE_SCREENSHOT === '1') {
    return fileURLToPath(new URL('../../../docs/devtools.png', import.meta.url));
  }
  const dir = tempDir();
  return join(dir, 'devtools.png');
}
