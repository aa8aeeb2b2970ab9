import { afterAll, beforeAll, it } from 'vitest';
import { earliestActionDate } from '../../src/core/batches.ts';
import { ok } from '../helpers/billing.ts';
import { startTestService } from '../helpers/service.ts';
import type { TestService } from '../helpers/service.ts';
import { advanceTo, debitAccount, debitCustomer, plusDays } from './fixtures.ts';

let t: TestService;
beforeAll(async () => { t = await startTestService(); });
afterAll(async () => { await t?.close(); });

it('scratch', async () => {
  const setup = await debitAccount(t, 'ZAR');
  const { account, today } = setup;
  const c = await debitCustomer(setup, 'debit_order');
  const inv = await ok(account, 'POST', '/v1/invoices', { customerID: c.customerId, InvoiceDate: today, DueDate: plusDays(today, 30), Charges: [{ Descrip: 'W', Qty: 1, UnitCostEx: 100 }] });
  const show = async (m: string, p: string, body?: unknown) => { const r = await account.request(m, p, body === undefined ? {} : { body }); console.log(m, p, r.status, r.text.slice(0, 600)); return r; };
  const b = await show('POST', '/v1/batches', { CurrencyCode: 'ZAR', GatewayToken: setup.gatewayToken, ActionDate: today });
  const tok = b.body.BatchToken;
  await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: c.customerId, Amount: 3, paymentMethodID: c.paymentMethodId, PaymentApplied: [{ invoiceID: 1e20, amount: 3 }] });
  await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: c.customerId, Amount: 3, paymentMethodID: c.paymentMethodId, PaymentApplied: [{ invoiceID: inv.invoiceID, amount: 'abc' }] });
  await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: c.customerId, Amount: 3, paymentMethodID: c.paymentMethodId, PaymentApplied: [{ invoiceID: inv.invoiceID, amount: 0 }] });
  await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: c.customerId, Amount: 3, paymentMethodID: c.paymentMethodId, PaymentApplied: [{ invoiceNumber: 'x', amount: 1 }] });
  await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: c.customerId, Amount: 3, paymentMethodID: c.paymentMethodId, PaymentApplied: [{ invoiceNumber: 1e20, amount: 1 }] });
  await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: c.customerId, Amount: 3, paymentMethodID: c.paymentMethodId });
  await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: 999999, Amount: 3, paymentMethodID: c.paymentMethodId, PaymentApplied: [] });
  const line = await show('POST', '/v1/batches/payments', { BatchToken: tok, customerID: c.customerId, Amount: 3, paymentMethodID: c.paymentMethodId, PaymentApplied: [] });
  await show('PUT', '/v1/batches/payments', { paymentID: line.body.paymentID, BatchToken: tok, customerID: c.customerId, Amount: 3, PaymentApplied: [{ allocationID: 1e20, invoiceID: inv.invoiceID, amount: 1 }] });
  await show('PUT', '/v1/batches/payments', { paymentID: line.body.paymentID, BatchToken: tok, customerID: c.customerId, Amount: 3, PaymentApplied: [{ allocationID: 99999, invoiceID: inv.invoiceID, amount: 1 }] });
  await show('PUT', `/v1/payments/${line.body.paymentID}`, { customerID: c.customerId, Amount: 3, CurrencyCode: 'ZAR', Date: today, Method: 'eft', Allocations: [] });
  await show('DELETE', `/v1/payments/${line.body.paymentID}`);
  await show('DELETE', `/v1/batches/payments/${line.body.paymentID}`);
  await show('PUT', '/v1/batches/submit', { BatchToken: tok, ActionDate: plusDays(today, 7) });
  await show('GET', `/v1/batches/${tok}`);
  await show('PUT', '/v1/batches', { BatchToken: tok, CurrencyCode: 'ZAR', GatewayToken: setup.gatewayToken, ActionDate: today });
  const ad = earliestActionDate('debit_order', today);
  await advanceTo(account, plusDays(today, 1));
  await show('GET', `/v1/batches/${tok}`);
  // second batch to processing
  const b2 = await show('POST', '/v1/batches', { CurrencyCode: 'ZAR', GatewayToken: setup.gatewayToken, ActionDate: plusDays(today, 1) });
  const today2 = plusDays(today, 1);
  await show('POST', '/v1/batches/payments', { BatchToken: b2.body.BatchToken, customerID: c.customerId, Amount: 10, paymentMethodID: c.paymentMethodId, PaymentApplied: [{ invoiceID: inv.invoiceID, amount: 10 }] });
  const ad2 = earliestActionDate('debit_order', today2);
  await show('PUT', '/v1/batches/submit', { BatchToken: b2.body.BatchToken, ActionDate: ad2 });
  await advanceTo(account, ad2);
  await show('GET', `/v1/batches/${b2.body.BatchToken}`);
  await show('PUT', '/v1/batches/cancel', { BatchToken: b2.body.BatchToken });
  console.log(ad);
});
