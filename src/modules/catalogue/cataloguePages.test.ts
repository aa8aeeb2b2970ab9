import { describe, expect, it } from 'vitest';
import { KeptPages, fillCounts } from './cataloguePages.ts';
import type { RenderedPage } from './cataloguePages.ts';

const page = (text: string): RenderedPage => ({ pieces: [text], versionIds: [] });

describe('kept catalogue pages', () => {
  it('serves a page only at the revision it was kept at, and forgets it once the revision moved', () => {
    const pages = new KeptPages(100);
    pages.keep('1/packages/20/0', 7, page('[]'));
    expect(pages.find('1/packages/20/0', 7)).toEqual(page('[]'));
    expect(pages.find('1/packages/20/0', 8)).toBeUndefined();
    expect(pages.find('1/packages/20/0', 7)).toBeUndefined();
    expect(pages.size).toEqual({ pages: 0, chars: 0 });
  });

  it('holds at most its characters, the least recently used page going first', () => {
    const pages = new KeptPages(10);
    pages.keep('a', 1, page('aaaa'));
    pages.keep('b', 1, page('bbbb'));
    expect(pages.find('a', 1)).toEqual(page('aaaa'));
    pages.keep('c', 1, page('cccc'));
    expect(pages.find('b', 1)).toBeUndefined();
    expect(pages.find('a', 1)).toEqual(page('aaaa'));
    expect(pages.find('c', 1)).toEqual(page('cccc'));
    expect(pages.size).toEqual({ pages: 2, chars: 8 });
    // A page larger than the whole allowance is not kept, and pushes nothing out.
    pages.keep('d', 1, page('d'.repeat(11)));
    expect(pages.find('d', 1)).toBeUndefined();
    expect(pages.size).toEqual({ pages: 2, chars: 8 });
  });

  it('replaces a page kept again under the same key', () => {
    const pages = new KeptPages(10);
    pages.keep('a', 1, page('aaaa'));
    pages.keep('a', 2, page('aaaaaa'));
    expect(pages.find('a', 2)).toEqual(page('aaaaaa'));
    expect(pages.size).toEqual({ pages: 1, chars: 6 });
  });

  it("fills each hole with its version's count, 0 for a version without subscriptions", () => {
    const rendered = {
      pieces: ['[{"SubscriptionCount":', ',"x":1},{"SubscriptionCount":', '}]'],
      versionIds: [4, 5],
    };
    expect(fillCounts(rendered, new Map([[5, 12]]))).toBe(
      '[{"SubscriptionCount":0,"x":1},{"SubscriptionCount":12}]',
    );
  });
});
