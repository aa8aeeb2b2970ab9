import { describe, expect, it } from 'vitest';
import { escapeHtml } from './htmlText.ts';

describe('escapeHtml', () => {
  it('escapes the five characters HTML gives a meaning to, and nothing else', () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;Tom &amp; Jerry&lt;/a&gt;',
    );
    expect(escapeHtml('Zoë · 1,234.50 – ok')).toBe('Zoë · 1,234.50 – ok');
    expect(escapeHtml('&amp;')).toBe('&amp;amp;');
  });
});
