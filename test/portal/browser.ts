import fs from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { WCAG_TAGS } from '../helpers/axe.ts';
import { dialect } from '../helpers/service.ts';

/**
 * The portal's browser tests: one Debian Chromium per file, axe on every page in the light and the dark scheme
 * (docs/design/portal.md, "Accessibility"), screenshots under test-output/portal/{dialect}/ (ignored by git) to look at.
 */

/** One folder per database, since both projects run at once. */
export const SCREENSHOTS = path.resolve('test-output/portal', dialect);

/** The file's browser (a live binding, set in beforeAll). */
export let browser: Browser;

export function useBrowser(): void {
  beforeAll(async () => {
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
}

export async function newPage(
  options: { colorScheme?: 'light' | 'dark'; width?: number } = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: options.width ?? 1000, height: 900 },
    colorScheme: options.colorScheme ?? 'light',
    acceptDownloads: true,
  });
  return { context, page: await context.newPage() };
}

/**
 * Every violation printed; the test fails on any serious or critical one, in either scheme. axe runs in the page
 * itself (`setLegacyMode`): the default opens a blank page for every analysis to merge the frames' results, which
 * doubled each check's time; the portal's pages are our own and same-origin, and a card frame inside one is checked
 * by test/widgets/captureWidget.a11y.browser.test.ts.
 */
export async function expectAccessible(page: Page, state: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const { violations } = await new AxeBuilder({ page }).withTags(WCAG_TAGS).setLegacyMode().analyze();
    for (const violation of violations) {
      console.log(
        `[axe, ${state}, ${scheme}] ${violation.impact} ${violation.id}: ${violation.help}\n` +
          violation.nodes
            .map((node) => `  ${node.target.join(' ')}: ${node.failureSummary ?? ''}`)
            .join('\n'),
      );
    }
    const severe = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      severe.map((v) => `${v.id} (${v.nodes.length})`),
      `${state}, ${scheme}`,
    ).toEqual([]);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

/** Signs in on the portal at `base` (its full address, ending in /) through its sign-in form. */
export async function signIn(page: Page, base: string, username: string, password: string): Promise<void> {
  await page.goto(`${base}login`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Whether the page scrolls sideways (it must not at 320 px: tables scroll in their own regions). */
export const scrollsSideways = (page: Page) =>
  page.evaluate(() => {
    const root = (
      globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
    ).document.documentElement;
    return root.scrollWidth > root.clientWidth;
  });

/** Saves the download a click starts and returns its first bytes and where it is. */
export async function download(
  page: Page,
  click: () => Promise<void>,
): Promise<{ file: string; head: string }> {
  const [started] = await Promise.all([page.waitForEvent('download'), click()]);
  const file = path.join(SCREENSHOTS, started.suggestedFilename());
  await started.saveAs(file);
  return { file, head: fs.readFileSync(file).subarray(0, 5).toString() };
}
