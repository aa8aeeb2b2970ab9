import { expect } from 'vitest';
import { movableClock, ok } from '../helpers/billing.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceBilling } from '../helpers/clock.ts';

/**
 * The coupons tests' shared setup (docs/credits.md, "Coupons"): one service per file on a clock that starts on
 * 1 March 2026 (test accounts start their own clocks there). Read the bindings inside tests.
 */
export const clock = movableClock('2026-03-01T10:00:00.000Z');
export let t: TestService;

export function useCouponService() {
  t = useTestService({ clock });
}

/** A coupon made through the API, with defaults for what the test does not care about. */
export function createCoupon(as: TestAccount, body: Record<string, unknown>) {
  return ok(as, 'POST', '/v1/coupons', { Name: 'A coupon', Duration: 'once', ...body });
}

/** A request the API refuses: its status and problem. */
export async function refused(as: TestAccount, method: string, path: string, body?: unknown, status = 422) {
  const res = await as.request(method, path, body === undefined ? {} : { body });
  expect(res.status, res.text).toBe(status);
  return res.body as { code: string; fields?: { field: string; message: string }[] };
}

export const fieldsOf = (problem: { fields?: { field: string }[] }) => problem.fields?.map((f) => f.field);

/** The account's events of one type, oldest first. */
export async function eventsOf(as: TestAccount, type: string) {
  const events = await ok(as, 'GET', `/v1/events?type=${type}&page_size=200`, undefined, 200);
  return (
    events as { type: string; data: { object: Record<string, any>; previous?: Record<string, any> } }[]
  ).reverse();
}

/** Moves the test account's clock to 10:00 (UTC) on `date`, running the bill run for every day passed. */
export { advanceBilling as advanceTo };

/** [Descrip, AmountEx, AmountInc] of each line of an invoice. */
export const linesOf = (invoice: any) =>
  invoice.Charges.map((c: any) => [c.Descrip, c.AmountEx, c.AmountInc]);
