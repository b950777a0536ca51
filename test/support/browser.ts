import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's headless Chromium driven by playwright-core (which never downloads a browser). `.ci/run`
 * installs it, so CI never skips; a developer machine without it skips with this message.
 */
export const CHROMIUM = process.env.BERTH_CHROMIUM ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);
export const chromiumSkip = !chromiumAvailable && !process.env.CI ? `headless Chromium is not installed at ${CHROMIUM} (apt-get install -y chromium)` : false;

/** Where browser suites keep their screenshots: git-ignored, kept after the run for a person to look at. */
export const SCREENSHOT_DIR = new URL('../../.berth-test/screenshots/', import.meta.url).pathname;

export interface Browser {
  readonly context: BrowserContext;
  readonly page: Page;
  /** Uncaught page errors and console errors, for a test to assert there were none it did not expect. */
  readonly problems: string[];
  readonly screenshotDir: string;
  screenshot(name: string): Promise<string>;
}

export async function openBrowser(profileDir: string, viewport = { width: 1280, height: 800 }, proxy?: string): Promise<Browser> {
  const context = await chromium.launchPersistentContext(profileDir, {
    // Loopback goes through the proxy too (`<-loopback>` lifts Chromium's default bypass).
    ...(proxy ? { proxy: { server: proxy, bypass: '<-loopback>' } } : {}),
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    acceptDownloads: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return {
    context,
    page,
    problems,
    screenshotDir: SCREENSHOT_DIR,
    async screenshot(name) {
      const path = join(SCREENSHOT_DIR, `${name}.png`);
      await page.screenshot({ path });
      return path;
    },
  };
}
