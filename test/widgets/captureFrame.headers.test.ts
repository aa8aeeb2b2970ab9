import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { MERCHANT, createSession, t, useWidgetService } from './fixtures.ts';

useWidgetService();

const fetchRaw = (path: string) => fetch(`${t.url}${path}`);

describe('the loader and the frame, without a browser', () => {
  it('serves the loader immutable, to any origin, with the integrity Html publishes', async () => {
    const session = await createSession(t);
    const res = await fetchRaw('/widget/v1/capture.js');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('javascript');
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    const body = Buffer.from(await res.arrayBuffer());
    const { createHash } = await import('node:crypto');
    const integrity = `sha384-${createHash('sha384').update(body).digest('base64')}`;
    expect(session.Html).toContain(`integrity="${integrity}"`);
  });

  it('frames the session for its AuthDomain alone, with a nonce policy and no X-Frame-Options', async () => {
    const session = await createSession(t, { AuthDomain: 'https://shop.example.com:8443' });
    const res = await fetchRaw(`/widget/capture/${session.HashToken}`);
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
    expect(csp).toBe(
      [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src 'nonce-${nonce}'`,
        "connect-src 'self'",
        "img-src 'self'",
        "form-action 'none'",
        "base-uri 'none'",
        'frame-ancestors https://shop.example.com:8443',
      ].join('; '),
    );
    expect(res.headers.get('x-frame-options')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    for (const label of ['Card number', 'Expiry', 'Security code', 'Name on card'])
      expect(html).toContain(`>${label}</label>`);
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).not.toContain(session.SessionToken);
    // A new nonce for every load.
    const again = await fetchRaw(`/widget/capture/${session.HashToken}`);
    expect(again.headers.get('content-security-policy')).not.toContain(nonce);
  });

  it('shows the merchant’s Description as text, never as markup', async () => {
    const session = await createSession(t, {
      SaleType: 'VaultSale',
      Amount: '19.99',
      Description: '<img src=x onerror="alert(1)">',
    });
    const html = await (await fetchRaw(`/widget/capture/${session.HashToken}`)).text();
    expect(html).toContain('&lt;img src=x onerror=&quot;alert(1)&quot;&gt; · Amount: 19.99 USD');
    expect(html).not.toContain('<img');
    expect(html).toContain('>Pay 19.99 USD</button>');
  });

  it('lets nobody frame a page for an unknown token', async () => {
    const res = await fetchRaw(`/widget/capture/${'a'.repeat(64)}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
  });

  it('keeps the HashToken and the SessionToken out of the request log', async () => {
    const session = await createSession(t, { AuthDomain: MERCHANT });
    await fetchRaw(`/widget/capture/${session.HashToken}`);
    // A path no route has still carries the token: the request line leaves it out all the same.
    expect((await fetchRaw(`/widget/capture/${session.HashToken}/nothing`)).status).toBe(404);
    await ok(t, 'GET', `/v1/widgets/capturepaymethod/get/${session.SessionToken}`);
    expect(t.logs.join('')).toContain('/widget/capture/[token]');
    expect(t.logs.join('')).toContain('/v1/widgets/capturepaymethod/get/[token]');
    expect(t.logs.join('')).not.toContain(session.HashToken);
    expect(t.logs.join('')).not.toContain(session.SessionToken);
  });
});
