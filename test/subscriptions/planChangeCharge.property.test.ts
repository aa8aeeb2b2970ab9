import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addCard } from '../collections/cards.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceClock } from '../helpers/clock.ts';
import { plusDays } from '../helpers/clock.ts';
import { randomRuns } from '../helpers/propertyRuns.ts';

// A plan change made now charges what its preview said (docs/pricing.md, "Changes and their credits"): over random
// packages, prices, tax (none, added, included), days into the period and a new term of the same or another
// length, the card payment collected for the change equals the preview's net amount due now to the cent, and the
// customer's Balance afterwards is what the preview implied (a credit left when the credit exceeded the charge).

const t = useTestService();

const minor = (amount: number) => Math.round(amount * 100);

interface Change {
  /** The prices of the package subscribed to and the one changed to, in cents. */
  fromCents: number;
  toCents: number;
  /** The new package's term in months: 1 keeps the anchor, 3 starts a new term today. */
  toTermMonths: 1 | 3;
  tax: 'none' | 'added' | 'included';
  /** Days after the start the change is made. */
  daysIn: number;
}

const changeArb: fc.Arbitrary<Change> = fc.record({
  fromCents: fc.integer({ min: 100, max: 50_000 }),
  toCents: fc.integer({ min: 100, max: 50_000 }),
  toTermMonths: fc.constantFrom(1 as const, 3 as const),
  tax: fc.constantFrom('none' as const, 'added' as const, 'included' as const),
  daysIn: fc.integer({ min: 0, max: 27 }),
});

/** A test account in UTC whose clock stands at midnight on the first of next month. */
async function accountOnTheFirst(tax: Change['tax']): Promise<{ account: TestAccount; today: string }> {
  const account = await t.newAccount('Plan change', { isTest: true, timeZone: 'UTC' });
  if (tax !== 'none') await ok(account, 'POST', '/v1/tax', { Name: 'VAT', rules: [{ Perc: 0.15 }] });
  if (tax === 'included') await ok(account, 'PUT', '/v1/account', { isTaxInclusive: true }, 204);
  const clock = ((await ok(account, 'GET', '/v1/account')).TestClockDate as string).slice(0, 10);
  const next = new Date(`${clock}T00:00:00.000Z`);
  next.setUTCMonth(next.getUTCMonth() + 1, 1);
  const today = next.toISOString().slice(0, 10);
  await advanceClock(account, `${today}T00:00:00.000Z`);
  return { account, today };
}

async function checkChange(change: Change): Promise<void> {
  const { account, today } = await accountOnTheFirst(change.tax);
  const from = await createPlan(account, { chargePrice: change.fromCents / 100 });
  const to = await createPlan(account, {
    chargePrice: change.toCents / 100,
    chargeTerm: change.toTermMonths,
  });
  const gatewayId = (await ok(account, 'GET', '/v1/gateways'))[0].gatewayID as number;
  const customerId = await createCustomer(account, {
    PaymentMethod: 'credit_card',
    PrimaryGatewayID: gatewayId,
  });
  await addCard(account, customerId, '4242424242424242');
  const sub = await subscribe(account, customerId, from);
  // The first period is charged to the card; nothing is owed before the change.
  await advanceClock(account, `${today}T06:00:00.000Z`);
  const changeDay = plusDays(today, change.daysIn);
  await advanceClock(account, `${changeDay}T10:00:00.000Z`);
  const paidBefore = await ok(account, 'GET', `/v1/customers/${customerId}/payments`);
  expect((await ok(account, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);

  const path = `/v1/subscriptions/${sub.subscriptionID}/changePackage`;
  const body = { packageID: to.packageId, packageRateTermID: to.rateTermId };
  const preview = await ok(account, 'PUT', `${path}?preview=true`, body, 200);
  // The net amount due now, as the portal shows it: what the new terms charge less the credit for unused time.
  const chargeMinor = preview.Invoices.reduce((sum: number, i: any) => sum + minor(i.Total), 0);
  const creditMinor = preview.Credits.reduce((sum: number, c: any) => sum + minor(c.Amount), 0);
  const netMinor = chargeMinor - creditMinor;
  // The preview's invoice already shows what is left to pay once the credit paid it.
  const previewBalance = preview.Invoices.reduce((sum: number, i: any) => sum + minor(i.Balance), 0);
  expect(previewBalance).toBe(Math.max(netMinor, 0));

  await ok(account, 'PUT', path, body, 204);
  await advanceClock(account, `${changeDay}T12:00:00.000Z`);
  const payments = (await ok(account, 'GET', `/v1/customers/${customerId}/payments`)) as any[];
  const before = new Set(paidBefore.map((p: any) => p.paymentID));
  const charged = payments.filter((p) => !before.has(p.paymentID) && p.Status !== 'Failed');
  // The card is charged the net amount due now to the cent, or not at all when the credit covers the charge.
  expect(charged.reduce((sum, p) => sum + minor(p.Amount), 0)).toBe(Math.max(netMinor, 0));
  expect(charged.length).toBe(netMinor > 0 ? 1 : 0);
  // What the credit did not use stays on the account as the customer's credit (a negative Balance).
  expect(minor((await ok(account, 'GET', `/v1/customers/${customerId}`)).Balance)).toBe(
    Math.min(netMinor, 0),
  );
}

describe('a plan change made now', () => {
  it('charges the preview’s net amount due to the cent and leaves the Balance the preview implied', async () => {
    await fc.assert(fc.asyncProperty(changeArb, checkChange), { numRuns: randomRuns(20) });
  }, 300_000);
});
