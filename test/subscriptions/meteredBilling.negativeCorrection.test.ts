import { describe, expect, it } from 'vitest';
import type { TestAccount } from '../helpers/service.ts';
import { createCustomer, createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import { addCard } from '../collections/cards.ts';
import { advance, meteredComponent, sendEvents } from './meteredBilling.fixtures.ts';

// docs/spec-decisions.md, "Usage billed from events": a late event that lowers a period
// already invoiced by more than the next invoice's other lines leaves that invoice at 0.00, never below, and the
// difference is the subscription's credit, paying the customer's open invoices and then the next ones.
const clock = movableClock('2026-03-01T10:00:00.000Z');

const t = useTestService({ clock });

const CARRIED = 'Credit beyond this invoice, carried to your account';

/**
 * A 0.00 monthly plan from 1 March with "API calls" billed from the `sum` of the events' `n` at 1.00 a call; 5
 * calls on 1 March, invoiced on 1 April (5.00), then a late event of −4 dated 31 March, sent on 1 April.
 */
async function correctedBelowZero(as: TestAccount, customerBody: Record<string, unknown> = {}) {
  const { metric, componentId } = await meteredComponent(as, 'api', 'sum', { property: 'n' });
  const plan = await createPlan(as, { chargePrice: 0 });
  const customerId = await createCustomer(as, customerBody);
  const onCard = customerBody.PaymentMethod === 'credit_card';
  if (onCard) await addCard(as, customerId, '4242424242424242');
  const sub = await subscribe(as, customerId, plan, { componentUsage: [{ componentID: componentId }] });
  const subscriptionId = sub.subscriptionID as number;
  const calls = (at: string, n: number) => ({ customerId, subscriptionId, code: metric.code, at, n });
  await sendEvents(as, [calls('2026-03-01T09:00:00Z', 5)]);
  await advance(as, '2026-04-01T06:00:00Z');
  const april = (await invoicesOf(as, customerId)).find((i) => i.InvoiceDate.startsWith('2026-04-01'));
  expect(april.Total).toBe(5);
  // Inside the 72-hour grace window after March was invoiced: a correction of March on the next invoice.
  await sendEvents(as, [calls('2026-03-31T12:00:00Z', -4)]);
  return { customerId, subscriptionId, aprilId: april.invoiceID as number, calls, plan };
}

const linesOf = (invoice: any) => invoice.Charges.map((c: any) => [c.Descrip, c.AmountEx]);

/** The 1 May invoice's lines: March's 5 calls became 1, so 4.00 off; April had none; the last line takes 4.00 back. */
const mayLines = (planName: string) => [
  [planName, 0],
  ['API calls, 1–31 Mar 2026: 4 fewer calls', -4],
  ['API calls: 0 calls', 0],
  [CARRIED, 4],
];

describe('a late event lowering an invoiced period by more than the next invoice', () => {
  it('leaves that invoice at 0.00 and credits the 4.00 to the invoice still owed', async () => {
    const as = await t.newAccount('Shop negative correction', { isTest: true });
    const { customerId, subscriptionId, aprilId, plan } = await correctedBelowZero(as);

    // The preview shows what the bill run will make: every line, and the one bringing the Total to 0.00.
    const preview = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/upcoming-invoice`);
    expect(preview.InvoiceDate.slice(0, 10)).toBe('2026-05-01');
    expect(linesOf(preview)).toEqual(mayLines(plan.name));
    expect(preview.Total).toBe(0);

    await advance(as, '2026-05-01T06:00:00Z');
    const invoices = await invoicesOf(as, customerId);
    const may = invoices.find((i) => i.InvoiceDate.startsWith('2026-05-01'));
    expect(linesOf(may)).toEqual(mayLines(plan.name));
    expect(may.Total).toBe(0);
    expect(may.Balance).toBe(0);

    // The credit: recorded for the subscription over the corrected March, issued as a credit_note adjustment.
    const credits = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/credits`);
    expect(credits).toHaveLength(1);
    expect(credits[0]).toMatchObject({
      Descrip: 'Credit carried: 2026-03-01 to 2026-04-01',
      Amount: 4,
      adjustmentID: expect.any(Number),
    });
    // Auto-applied to the earliest open invoice: April's 5.00 now owes 5.00 − 4.00 = 1.00, and is not paid.
    const april = invoices.find((i) => i.invoiceID === aprilId);
    expect(april).toMatchObject({ Total: 5, TotalNegativeAdjs: 4, Balance: 1 });
    expect(april.Status).not.toBe('Paid');
    // The customer owes exactly what March's 1 call costs: 5.00 + 0.00 − 4.00.
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(1);
  });

  it('keeps the credit when nothing is owed, and the credit pays the next invoice before the card', async () => {
    const as = await t.newAccount('Shop negative correction card', { isTest: true });
    const gatewayId = (await ok(as, 'GET', '/v1/gateways'))[0].gatewayID as number;
    const { customerId, subscriptionId, aprilId, calls, plan } = await correctedBelowZero(as, {
      PaymentMethod: 'credit_card',
      PrimaryGatewayID: gatewayId,
    });
    const charged = async () =>
      ((await ok(as, 'GET', `/v1/customers/${customerId}/payments`)) as any[])
        .filter((p) => p.Status !== 'Failed')
        .map((p) => p.Amount);
    // April's 5.00 was charged to the card on 1 April.
    expect(await charged()).toEqual([5]);
    expect((await invoicesOf(as, customerId)).find((i) => i.invoiceID === aprilId).Status).toBe('Paid');

    await advance(as, '2026-05-01T06:00:00Z');
    const may = (await invoicesOf(as, customerId)).find((i) => i.InvoiceDate.startsWith('2026-05-01'));
    expect(linesOf(may)).toEqual(mayLines(plan.name));
    expect(may.Total).toBe(0);
    // Nothing charged for it; nothing open to pay: the 4.00 stays as the customer's credit.
    expect(await charged()).toEqual([5]);
    const [credit] = await ok(as, 'GET', `/v1/subscriptions/${subscriptionId}/credits`);
    expect(credit.Amount).toBe(4);
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(-4);

    // 6 calls in May: the 1 June invoice is 6.00; credit first pays 4.00 of it and the card is charged 2.00.
    await advance(as, '2026-05-10T12:00:00Z');
    await sendEvents(as, [calls('2026-05-10T09:00:00Z', 6)]);
    await advance(as, '2026-06-01T06:00:00Z');
    const june = (await invoicesOf(as, customerId)).find((i) => i.InvoiceDate.startsWith('2026-06-01'));
    expect(linesOf(june)).toEqual([
      [plan.name, 0],
      ['API calls: 6 calls', 6],
    ]);
    expect(june).toMatchObject({ Total: 6, TotalNegativeAdjs: 4, Balance: 0, Status: 'Paid' });
    expect(await charged()).toEqual([5, 2]);
    const adjustment = await ok(
      as,
      'GET',
      `/v1/adjustment/get?type=negative&adjustmentID=${credit.adjustmentID}&customerID=${customerId}`,
    );
    expect(adjustment.adjustment).toMatchObject({ Amount: 4, NegativeAdjustmentType: 'credit_note' });
    // 5.00 + 0.00 + 6.00 billed, 4.00 credited, 7.00 paid by card: nothing owed, nothing left over.
    expect((await ok(as, 'GET', `/v1/customers/${customerId}`)).Balance).toBe(0);
  });
});
