import { describe, expect, it } from 'vitest';
import { earliestActionDate, onBusinessDay, returnWindowEnd } from '../../src/core/bankingDays.ts';
import { boundary } from '../../src/core/periods.ts';
import { createPlan, invoicesOf, ok, subscribe } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import { advanceTo, debitAccount, debitCustomer, plusDays } from './fixtures.ts';

// A debit-order customer's subscription invoices follow the customer's settings into batches (docs/gateways.md,
// "From the customer's settings to the money"): bundled by the daily run, submitted by a person, settled once the
// return window passes, renewal after renewal.

const t = useTestService();

describe("a debit-order customer's subscription", () => {
  it('has each renewal bundled into a batch, submitted and settled', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const { customerId, paymentMethodId } = await debitCustomer(setup, 'debit_order');
    await ok(account, 'PUT', `/v1/customers/${customerId}`, {
      PaymentMethod: 'debit_order',
      PrimaryGatewayID: setup.gatewayId,
    });
    const plan = await createPlan(account, { chargePrice: 250, currency: 'ZAR', chargeTerm: 1 });
    await subscribe(account, customerId, plan);
    const [first] = await invoicesOf(account, customerId);
    expect(first).toMatchObject({
      CollectionSource: 'customer',
      CollectionMethod: 'debit_order',
      gatewayID: setup.gatewayId,
      customerPaymentMethodID: paymentMethodId,
      CollectionProblem: null,
    });

    let renewal = today;
    for (let month = 0; month < 2; month += 1) {
      // The run of the invoice's due date bundles it; the action date is the earliest a debit order allows.
      await advanceTo(account, renewal);
      const open = (await ok(account, 'GET', '/v1/batches')).filter((b: any) => b.State === 'open');
      expect(open).toHaveLength(1);
      expect(open[0]).toMatchObject({ NumberOfPayments: 1, PaymentsTotal: '250.00' });
      const invoices = await invoicesOf(account, customerId);
      expect(invoices).toHaveLength(month + 1);
      expect(invoices.at(-1)).toMatchObject({ Balance: 0, TotalPendingPaid: 250 });

      const actionDate = onBusinessDay(earliestActionDate('debit_order', renewal), 'debit_order');
      await ok(account, 'PUT', '/v1/batches/submit', {
        BatchToken: open[0].BatchToken,
        ActionDate: actionDate,
      });
      await advanceTo(account, plusDays(returnWindowEnd('debit_order', actionDate), 1));
      expect((await ok(account, 'GET', `/v1/batches/${open[0].BatchToken}`)).State).toBe('processed');
      expect((await invoicesOf(account, customerId)).at(-1)).toMatchObject({ Status: 'Paid', NumTries: 1 });

      // From the anchor, as the service counts renewals: the day before plus a month would roll 31 January to 3 March.
      renewal = boundary(today, { count: 1, unit: 'months' }, month + 1);
    }
    const payments = await ok(account, 'GET', `/v1/customers/${customerId}/payments`);
    expect(payments.map((p: any) => [p.Method, p.Status, p.Amount])).toEqual([
      ['debit_order', 'Allocated', 250],
      ['debit_order', 'Allocated', 250],
    ]);
  });

  it('with a bank account never validated: the invoice records why, once, and is not bundled', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const customer = await ok(account, 'POST', '/v1/customers', {
      Name: 'Ada',
      Email: 'unvalidated@example.com',
      CurrencyCode: 'ZAR',
      PaymentMethod: 'debit_order',
      PrimaryGatewayID: setup.gatewayId,
    });
    const bank = await ok(
      account,
      'POST',
      '/v1/paymentmethods/bankaccount',
      {
        customerID: customer.customerID,
        isPrimary: true,
        BankAccount: {
          Method: 'debit_order',
          AccountType: 'Savings',
          AccountHolder: 'Ada Lovelace',
          Bank: 'Standard Bank',
          AccountNumber: '62001234567',
          BranchCode: '051001',
        },
      },
      200,
    );
    const plan = await createPlan(account, { chargePrice: 250, currency: 'ZAR' });
    await subscribe(account, customer.customerID, plan);
    await advanceTo(account, plusDays(today, 1));
    await advanceTo(account, plusDays(today, 2));
    expect(await ok(account, 'GET', '/v1/batches')).toHaveLength(0);
    const [invoice] = await invoicesOf(account, customer.customerID);
    expect(invoice.CollectionProblem).toBe(`the primary payment method ${bank.paymentMethodID} is not valid`);
    const types = (await eventsOf(account, 'invoice', invoice.invoiceID)).map((e) => e.type);
    expect(types.filter((type) => type === 'invoice.collection_blocked')).toHaveLength(1);
  });
});
