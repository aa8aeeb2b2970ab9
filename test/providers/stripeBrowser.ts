import type { BrowserContext, Route } from 'playwright-core';
import {
  STRIPE_AUTHENTICATE,
  STRIPE_FAIL_AUTHENTICATION,
  STRIPE_JS_STAND_IN,
  STRIPE_JS_URL,
} from './standIns/stripeJs.ts';
import type { StripeSimulator } from './stripeSimulator.ts';

/**
 * Routes a browser's Stripe to the test's: Stripe.js to the stand-in of test/providers/standIns/, api.stripe.com to
 * the simulator (each call told to `onCall` as `METHOD /path`), and the stand-in's test 3-D Secure page to the
 * simulator's verdict: "Complete authentication" is the customer passing it at Stripe, "Fail authentication" not.
 */
export async function routeStripeToSimulator(
  context: BrowserContext,
  sim: StripeSimulator,
  onCall: (call: string) => void = () => {},
): Promise<void> {
  await context.route(STRIPE_JS_URL, (route) =>
    route.fulfill({ contentType: 'text/javascript; charset=utf-8', body: STRIPE_JS_STAND_IN }),
  );
  await context.route('https://api.stripe.com/**', async (route) => {
    const request = route.request();
    const headers = Object.fromEntries(
      Object.entries(await request.allHeaders()).filter(([name]) => !name.startsWith(':')),
    );
    const url = new URL(request.url());
    onCall(`${request.method()} ${url.pathname}`);
    const body = request.postData();
    const answer = await sim.fetch(url.href, {
      method: request.method(),
      headers,
      ...(body === null ? {} : { body }),
    });
    await route.fulfill({
      status: answer.status,
      headers: { ...Object.fromEntries(answer.headers), 'access-control-allow-origin': '*' },
      body: await answer.text(),
    });
  });
  await context.route(STRIPE_AUTHENTICATE, (route) =>
    answered(route, () => sim.authenticate(STRIPE_AUTHENTICATE.exec(route.request().url())![1]!)),
  );
  await context.route(STRIPE_FAIL_AUTHENTICATION, (route) =>
    answered(route, () =>
      sim.failAuthentication(STRIPE_FAIL_AUTHENTICATION.exec(route.request().url())![1]!),
    ),
  );
}

/** Does what the stand-in's page asked for, and answers it with an empty page. */
async function answered(route: Route, act: () => void): Promise<void> {
  act();
  await route.fulfill({
    status: 200,
    contentType: 'text/html',
    body: '',
    headers: { 'access-control-allow-origin': '*' },
  });
}
