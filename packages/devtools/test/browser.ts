import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

/** Debian's chromium, installed by scripts/ensure-chromium.sh (the test setup and CI run it). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/** The machine's network is closed: nothing may try to reach out (and stall a test on a timeout). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A headless browser on a fresh profile, and every request the page made that did not go to 127.0.0.1. */
export interface TestBrowser {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly outsideRequests: string[];
  /** Errors the page's script threw (a person would see a broken page). */
  readonly pageErrors: string[];
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

/** Launches chromium on a fresh `--user-data-dir` and opens one page; requests off this machine are refused. */
export async function openBrowser(): Promise<TestBrowser> {
  const userDataDir = mkdtempSync(join(tmpdir(), 'devtools-chromium-'));
  let context: BrowserContext;
  try {
    // A persistent context is how playwright takes a user data directory of our choosing.
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
  const outsideRequests: string[] = [];
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1') return route.continue();
    outsideRequests.push(url.href);
    return route.abort();
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(String(error)));
  return {
    page,
    context,
    outsideRequests,
    pageErrors,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
