import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';

export const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];

export type AxeResults = Awaited<ReturnType<AxeBuilder['analyze']>>;

/** Some rule passed on a node inside a frame: its target names the iframe, then the node. */
export function checkedInsideFrame(results: AxeResults): boolean {
  return results.passes.some((rule) => rule.nodes.some((node) => node.target.length > 1));
}

/**
 * axe on a page with a frame in it. @axe-core/playwright gives each frame one second to take axe's source and
 * silently leaves out a frame that did not (its `inject`); on a loaded machine that happens, so the page is
 * analysed again, at most four times in all, until the frame was checked.
 */
export async function analyzeWithFrame(page: Page): Promise<AxeResults> {
  const analyze = () => new AxeBuilder({ page }).withTags(WCAG_TAGS).analyze();
  let results = await analyze();
  for (let again = 0; !checkedInsideFrame(results) && again < 3; again += 1) results = await analyze();
  return results;
}
