import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createPlan, ok, subscribe } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { addCard } from '../collections/cards.ts';
import { mandateBody } from '../mandates/fixtures.ts';
import { START, clock, customerWithLogin, portalPath, signedIn, t, usePortalService } from './fixtures.ts';
import type { PortalClient } from './fixtures.ts';

// The HTML forms' routes (the portal's pages, the eMandate signing pages) read their bodies as text fields
// (src/http/formFields.ts; docs/spec-decisions.md, "Request bodies"). Whatever a client sends them, as a form or
// as JSON, the answer is never a 5xx: before, a JSON field that was not text answered 500, and on PostgreSQL so did
// a NUL in a form field, which its text cannot hold.

usePortalService();

/**
 * The paths of the service's POST routes, read from Fastify's own tree of routes (printRoutes), so that a form
 * route added later is fuzzed too.
 */
function postPaths(): string[] {
  const tree = t.service.app.printRoutes({ commonPrefix: false, method: 'POST' });
  const prefixes: string[] = [];
  const paths: string[] = [];
  for (const line of tree.split('\n')) {
    const node = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!node) continue;
    const depth = node[1]!.length / 4;
    const path = (depth === 0 ? '' : prefixes[depth - 1]!) + node[2]!;
    prefixes.length = depth;
    prefixes.push(path);
    if (node[3]?.split(', ').includes('POST')) paths.push(path);
  }
  return paths;
}

/** The form routes: every POST of the portal's pages and of the eMandate pages (not the API's create). */
const isFormRoute = (path: string) =>
  path.startsWith('/portal/:slug/') ||
  (path.startsWith('/widget/emandate/') && !path.startsWith('/widget/emandate/frame'));

/** Odd values: NUL, lone surrogates, control characters, numbers, lists, objects, and text too long for any form. */
const odd = fc.oneof(
  fc.constantFrom('a\u0000b', '\u0000', '\ud800', 'x\udfffy', '\u202e\u0007', ''),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map((length) => 'x'.repeat(Math.abs(length) % 40_000)),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string({ maxLength: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 5 }), { maxKeys: 2 }),
);

/** `fields` as a form would send them; lists as the field repeated, objects as bracketed names. */
function formBody(fields: Record<string, unknown>): string {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields)) {
    if (Array.isArray(value)) for (const item of value) form.append(name, String(item));
    else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) form.append(`${name}[${key}]`, String(item));
    } else form.append(name, String(value));
  }
  return form.toString();
}

/** Every field name of the forms on these pages, and the form's own hidden fields (the CSRF token among them). */
async function formsOf(client: PortalClient | undefined, paths: string[]) {
  const names = new Set<string>();
  const hidden: Record<string, string> = {};
  for (const path of paths) {
    const page = client
      ? await client.get(path)
      : await fetch(t.url + path).then(async (r) => ({ text: await r.text() }));
    for (const match of page.text.matchAll(/<(?:input|select|textarea)[^>]*\bname="([^"]+)"[^>]*>/g)) {
      names.add(match[1]!);
      const value = /\bvalue="([^"]*)"/.exec(match[0]);
      if (/type="hidden"/.test(match[0]) && value) hidden[match[1]!] = value[1]!;
    }
  }
  return { names: [...names], hidden };
}

describe('every form route answers odd fields without a 5xx', () => {
  it('as a form and as JSON, with NUL, lone surrogates, lists, objects, numbers and very long text', async () => {
    // What the forms act on: an invoice, two cards, a subscription, an unsigned eMandate.
    const login = await customerWithLogin();
    await addCard(t, login.customerId, '4242424242424242');
    const secondCard = await addCard(t, login.customerId, '5555555555554444', { isPrimary: false });
    const invoice = await issuedInvoice(t, {
      customerId: login.customerId,
      amount: '12.34',
      invoiceDate: '2026-03-01',
      dueDate: '2026-03-10',
    });
    const plan = await createPlan(t, { chargePrice: 31 });
    clock.set('2026-03-01T10:00:00.000Z');
    const subscription = await subscribe(t, login.customerId, plan, { StartDate: '2026-03-01' });
    clock.set(START);
    const mandate = await ok(t, 'POST', '/widget/emandate', mandateBody('2026-04-01'), 200);
    const client = await signedIn(login);
    const base = client.base;
    const ids: Record<string, string> = {
      slug: base.split('/')[2]!,
      token: mandate.Token as string,
    };
    const idFor = (path: string) =>
      path.includes('/invoices/')
        ? String(invoice.invoiceID)
        : path.includes('/subscriptions/')
          ? String(subscription.subscriptionID)
          : String(secondCard);
    const pagePaths = [
      '',
      'invoices',
      `invoices/${invoice.invoiceID}`,
      `invoices/${invoice.invoiceID}/pay-card`,
      `subscriptions/${subscription.subscriptionID}`,
      'payment-methods',
      `payment-methods/${secondCard}/delete`,
      'payment-methods/add',
      'details',
      'password',
    ].map((path) => `${base}${path}`);
    const portalForms = await formsOf(client, pagePaths);
    const signedOut = await formsOf(undefined, [
      `${base}login`,
      `${base}reset`,
      `/widget/emandate/${ids.token}`,
    ]);
    // With names every object inherits: a form's fields are read by name (docs/spec-decisions.md, "Request bodies").
    const inherited = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
    const names = [
      ...new Set([...portalForms.names, ...signedOut.names, 'csrf', 'Address1', 'username', ...inherited]),
    ];
    expect(portalForms.hidden['csrf']).toMatch(/\S/);

    // Signing out would end the session the other routes are fuzzed in: it goes last.
    const routes = postPaths()
      .filter(isFormRoute)
      .sort((a, b) => Number(a.endsWith('/logout')) - Number(b.endsWith('/logout')));
    expect(routes).toEqual(
      expect.arrayContaining([
        '/portal/:slug/login',
        '/portal/:slug/details',
        '/portal/:slug/invoices/:id/pay',
        '/widget/emandate/:token/sign',
      ]),
    );
    const fields = fc.dictionary(fc.constantFrom(...names), odd, { minKeys: 1, maxKeys: 4 });
    const wrong: string[] = [];
    for (const route of routes) {
      const url = route.replace(/:(\w+)/g, (_whole, name: string) => ids[name] ?? idFor(route));
      await fc.assert(
        fc.asyncProperty(fields, fc.boolean(), async (sent, asJson) => {
          // The page's own CSRF token, unless the run sends an odd one: the fields reach the handler.
          const body = { csrf: portalForms.hidden['csrf']!, ...sent };
          const response = await fetch(t.url + url, {
            method: 'POST',
            headers: {
              cookie: [...client.cookies].map(([name, value]) => `${name}=${value}`).join('; '),
              'content-type': asJson ? 'application/json' : 'application/x-www-form-urlencoded',
              origin: t.url,
              'sec-fetch-site': 'same-origin',
            },
            body: asJson ? JSON.stringify(body) : formBody(body),
            redirect: 'manual',
          });
          const text = await response.text();
          if (response.status >= 500)
            wrong.push(
              `${route} ${JSON.stringify(body).slice(0, 300)}: ${response.status} ${text.slice(0, 200)}`,
            );
          return response.status < 500;
        }),
        { numRuns: 10 },
      );
    }
    expect(wrong).toEqual([]);
    expect(await portalPath()).toBe(base);
  });
});

describe('a field that is not text, or holds NUL, is a 422 naming it', () => {
  it('a NUL in the portal’s sign-in username', async () => {
    const login = await customerWithLogin();
    const base = await portalPath();
    const page = await fetch(`${t.url}${base}login`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())?.[1] ?? '';
    const response = await fetch(`${t.url}${base}login`, {
      method: 'POST',
      headers: {
        cookie: page.headers
          .getSetCookie()
          .map((line) => line.split(';')[0])
          .join('; '),
        'content-type': 'application/x-www-form-urlencoded',
        origin: t.url,
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ csrf, username: `${login.username}\u0000`, password: login.password }),
      redirect: 'manual',
    });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain('username: must not contain NUL');
  });

  it('eMandate signing fields sent as JSON numbers, lists and objects, and a NUL in Address1', async () => {
    const mandate = await ok(t, 'POST', '/widget/emandate', mandateBody('2026-04-01'), 200);
    const sign = (contentType: string, body: string) =>
      fetch(`${t.url}/widget/emandate/${mandate.Token}/sign`, {
        method: 'POST',
        headers: { 'content-type': contentType, origin: t.url, 'sec-fetch-site': 'same-origin' },
        body,
        redirect: 'manual',
      });
    for (const [field, value] of [
      ['TypedName', 5],
      ['Consent', ['yes']],
      ['Address1', { line: '12 Long Street' }],
    ] as const) {
      const response = await sign(
        'application/json',
        JSON.stringify({ Consent: 'yes', TypedName: 'T Nkosi', [field]: value }),
      );
      const text = await response.text();
      expect(response.status, text).toBe(422);
      expect(JSON.parse(text).fields).toEqual([{ field, message: 'must be text' }]);
    }
    const nul = await sign(
      'application/x-www-form-urlencoded',
      new URLSearchParams({
        Consent: 'yes',
        TypedName: 'T Nkosi',
        Address1: '12 Long\u0000 Street',
      }).toString(),
    );
    expect(nul.status).toBe(422);
    expect(((await nul.json()) as any).fields).toEqual([
      { field: 'Address1', message: 'must not contain NUL (\\u0000) characters' },
    ]);
    // Still unsigned: nothing was changed.
    expect((await ok(t, 'GET', `/v1/emandate?Token=${mandate.Token}`)).Status).not.toBe('Signed');
  });
});
