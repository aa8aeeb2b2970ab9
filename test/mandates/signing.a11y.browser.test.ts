import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { WCAG_TAGS, analyzeWithFrame, checkedInsideFrame } from '../helpers/axe.ts';
import { useBrowserSetup } from './browser.fixtures.ts';
import { createPageMandate, mandateBody, t, useMandatesService } from './fixtures.ts';

// docs/design/hosted-pages.md, "eMandate pages": the signing pages must be usable by everyone. axe-core checks
// each page against WCAG 2.0, 2.1 and 2.2 A and AA in Debian's Chromium; a serious or critical violation fails the
// test (every violation is printed). The redirect pages follow the signee's colour scheme, so they are checked in
// both. Screenshots at 320 px wide go to test-output/emandate-a11y/ (git-ignored), for a person to look at.

const SCREENSHOTS = path.resolve(import.meta.dirname, '../../test-output/emandate-a11y');

useMandatesService();

const setup = useBrowserSetup('Accessible signing');
const { onFreshPage } = setup;

/**
 * Runs axe on the page (its frames included), prints every violation, fails on a serious or critical one. With
 * `inFrame`, axe must have looked inside the frame; with `contrast`, it must have measured the text's contrast.
 */
async function expectAccessible(
  page: Page,
  name: string,
  { inFrame = false, contrast = false } = {},
): Promise<void> {
  const results = inFrame
    ? await analyzeWithFrame(page)
    : await new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  // axe looked at the page: rules passed, and inside the frame when there is one (a target through an iframe).
  expect(results.passes.length).toBeGreaterThan(0);
  if (inFrame) expect(checkedInsideFrame(results), 'axe checked nothing inside the frame').toBe(true);
  if (contrast) {
    const measured = results.passes.find((rule) => rule.id === 'color-contrast');
    expect(measured?.nodes.length ?? 0, 'axe measured no text contrast').toBeGreaterThan(0);
  }
  console.log(
    `[axe ${name}] ${results.passes.length} rules passed, ${results.violations.length} violated, ${results.incomplete.length} to review`,
  );
  for (const violation of results.violations) {
    console.log(
      `[axe ${name}] ${violation.impact} ${violation.id}: ${violation.help}\n` +
        violation.nodes.map((node) => `  ${node.target.join(' ')}: ${node.failureSummary}`).join('\n'),
    );
  }
  const blocking = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(blocking.map((v) => `${v.id} (${v.impact})`)).toEqual([]);
}

const at320 = (work: (page: Page) => Promise<void>) => onFreshPage(work, { width: 320, height: 800 });

const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });

describe('the eMandate pages under axe-core', () => {
  it('has no serious violation on the redirect signing page, nor after signing', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    await at320(async (page) => {
      await page.goto(`${t.url}/widget/emandate/${token}`);
      await page.getByRole('button', { name: 'Sign mandate' }).waitFor();
      await shot(page, 'signing');
      await expectAccessible(page, 'signing page');

      await page.getByRole('checkbox').check();
      await page.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await page.getByRole('button', { name: 'Sign mandate' }).click();
      await page.getByRole('heading', { name: 'Mandate signed' }).waitFor();
      await shot(page, 'signed');
      await expectAccessible(page, 'signed page');
    });
  });

  it('has no serious violation on the 422 page of a missing consent', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    await at320(async (page) => {
      await page.goto(`${t.url}/widget/emandate/${token}`);
      await page.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await page.getByRole('button', { name: 'Sign mandate' }).click();
      await page.getByRole('alert').waitFor();
      await shot(page, 'missing-consent');
      await expectAccessible(page, 'missing consent');
    });
  });

  it('has no serious violation in the frame on a merchant page', async () => {
    const token = await setup.embeddedMandate();
    await at320(async (page) => {
      const frame = await setup.openCheckout(page, token);
      await frame.getByRole('button', { name: 'Sign mandate' }).waitFor();
      await shot(page, 'frame');
      await expectAccessible(page, 'merchant frame', { inFrame: true });
    });
  });
});

describe('the eMandate pages in the dark colour scheme under axe-core', () => {
  const inDark = (work: (page: Page) => Promise<void>) =>
    onFreshPage(work, { width: 320, height: 800, colorScheme: 'dark' });
  /** The page's own background: the dark theme's, not the light one's white. */
  const background = (page: Page) => page.evaluate<string>('getComputedStyle(document.body).backgroundColor');

  it('has no serious violation, contrast included, signing, refused and signed', async () => {
    const token = await createPageMandate(setup.account, mandateBody(setup.start));
    await inDark(async (page) => {
      await page.goto(`${t.url}/widget/emandate/${token}`);
      await page.getByRole('button', { name: 'Sign mandate' }).waitFor();
      expect(await background(page)).toBe('rgb(18, 18, 18)');
      await shot(page, 'dark-signing');
      await expectAccessible(page, 'dark signing page', { contrast: true });

      await page.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await page.getByRole('button', { name: 'Sign mandate' }).click();
      await page.getByRole('alert').waitFor();
      await shot(page, 'dark-missing-consent');
      await expectAccessible(page, 'dark missing consent', { contrast: true });

      await page.getByRole('checkbox').check();
      await page.getByLabel(/Type your full name/).fill('Thandi Nkosi');
      await page.getByRole('button', { name: 'Sign mandate' }).click();
      await page.getByRole('heading', { name: 'Mandate signed' }).waitFor();
      expect(await background(page)).toBe('rgb(18, 18, 18)');
      await shot(page, 'dark-signed');
      await expectAccessible(page, 'dark signed page', { contrast: true });
    });
  });

  it('has no serious violation on the declined page, with its way back', async () => {
    const token = await createPageMandate(
      setup.account,
      mandateBody(setup.start, { CancelUrl: 'https://shop.example/mandate/declined' }),
    );
    await inDark(async (page) => {
      await page.goto(`${t.url}/widget/emandate/${token}`);
      await page.getByRole('button', { name: 'Decline' }).click();
      await page.getByRole('heading', { name: 'Mandate declined' }).waitFor();
      expect(await background(page)).toBe('rgb(18, 18, 18)');
      await shot(page, 'dark-declined');
      await expectAccessible(page, 'dark declined page', { contrast: true });
    });
  });

  it('keeps the frame light on a merchant page, whose scheme it cannot know', async () => {
    const token = await setup.embeddedMandate();
    await inDark(async (page) => {
      const frame = await setup.openCheckout(page, token);
      await frame.getByRole('button', { name: 'Sign mandate' }).waitFor();
      const signing = page.frames().find((f) => f.url().includes('/widget/emandate/frame/'));
      expect(await signing?.evaluate<string>('getComputedStyle(document.body).backgroundColor')).toBe(
        'rgb(255, 255, 255)',
      );
      await shot(page, 'dark-frame');
      await expectAccessible(page, 'dark merchant frame', { inFrame: true, contrast: true });
    });
  });
});
