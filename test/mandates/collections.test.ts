import { beforeEach, describe, expect, it } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { advanceTo } from '../batches/fixtures.ts';
import type { DebitSetup } from '../batches/fixtures.ts';
import {
  addMandatedLine,
  debitOrderAccount,
  mandateBody,
  mandatedCustomer,
  openDebitBatch,
  plusDays,
  useMandatesService,
} from './fixtures.ts';
import type { MandatedCustomer } from './fixtures.ts';

// docs/design/mandates.md, "Checks at build time": a batch line whose bank account is linked to an eMandate is
// checked against it when the batch is built; one that breaks it leaves the batch with its reason (docs/gateways.md,
// "One customer never holds up a batch"): its payment deleted, its invoice owing again with the rule as its
// CollectionProblem. The other lines go to the gateway; a batch left with none is cancelled, its BuildError naming
// each line and the rule.

useMandatesService();

let setup: DebitSetup;
let account: TestAccount;
/** The earliest action date a debit order submitted today may have: every batch here collects on it. */
let actionDate: string;

// A test clock only moves forward, and each test submits on its first day: an account of its own each.
beforeEach(async () => {
  setup = await debitOrderAccount('Mandated debits');
  account = setup.account;
  actionDate = earliestActionDate('debit_order', setup.today);
});

const dayOf = (date: string) => Number(date.slice(8, 10));

/** A customer whose bank account is linked to a signed mandate with these terms (monthly on the action date's day). */
const mandated = (terms: Record<string, unknown> = {}): Promise<MandatedCustomer> =>
  mandatedCustomer(account, mandateBody(setup.today, { debit_ActionDay: dayOf(actionDate), ...terms }));

const openBatch = () => openDebitBatch(setup);

/** A line of the batch collecting `amount` for a fresh invoice of that amount; its paymentID. */
const addLine = async (batchToken: string, who: MandatedCustomer, amount: number) =>
  (await addMandatedLine(setup, batchToken, who, amount)).paymentId;

/** The invoice a line pays, read before the line leaves (its payment is deleted then). */
async function invoiceOf(paymentId: number): Promise<number> {
  const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
  return payment.Allocations[0].invoiceID as number;
}

/**
 * The line left its batch: its payment is gone, its invoice owes again, counted no try, and was blocked saying why
 * (`reason`). `stillBlocked`: the mandate refuses what the invoice owes on any date, so the run keeps it out (no
 * NextTryDate); otherwise the run plans it for the mandate's own day.
 */
async function expectLeft(
  paymentId: number,
  invoiceId: number,
  reason: RegExp,
  stillBlocked: boolean,
): Promise<void> {
  expect((await account.request('GET', `/v1/payments/${paymentId}`)).status).toBe(404);
  const invoice = await ok(account, 'GET', `/v1/invoices/${invoiceId}`);
  expect(invoice.NumTries).toBe(0);
  expect(invoice.Balance).toBeGreaterThan(0);
  const blocked = (await eventsOf(account, 'invoice', invoiceId)).filter(
    (e) => e.type === 'invoice.collection_blocked',
  );
  expect(blocked).toHaveLength(1);
  expect(blocked[0]!.data.object.CollectionProblem).toMatch(reason);
  if (stillBlocked) {
    expect(invoice.CollectionProblem).toMatch(reason);
    expect(invoice.NextTryDate).toBeNull();
  } else {
    expect(invoice.CollectionProblem).toBeNull();
    expect(invoice.NextTryDate).not.toBeNull();
  }
}

/** Every line left: the batch is cancelled, not failed, and nothing reached the gateway. */
async function expectEmptiedAndCancelled(batchToken: string, built: Record<string, any>): Promise<void> {
  expect(built.State).toBe('cancelled');
  expect(built.NumberOfPayments).toBe(0);
  const types = (await eventsOf(account, 'batch', batchToken)).map((e) => e.type);
  expect(types).toContain('batch.cancelled');
  expect(types).not.toContain('batch.build_failed');
}

/** Submits the batch for `date` today and lets tomorrow's run build it; the batch as GET shows it then. */
async function submitAndBuild(batchToken: string, date = actionDate): Promise<Record<string, any>> {
  await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batchToken, ActionDate: date });
  await advanceTo(account, plusDays(setup.today, 1));
  return ok(account, 'GET', `/v1/batches/${batchToken}`);
}

describe('a batch line under an eMandate', () => {
  it('is built when it keeps to the mandate: on its day, the instalment', async () => {
    const who = await mandated();
    const batch = await openBatch();
    await addLine(batch, who, 299.99);
    const built = await submitAndBuild(batch);
    expect(built.BuildError).toBeNull();
    expect(built.State).toBe('submitted');
  });

  it('refuses a fixed mandate’s line for another amount, naming the payment, customer and rule', async () => {
    const who = await mandated();
    const batch = await openBatch();
    const paymentId = await addLine(batch, who, 300);
    const invoiceId = await invoiceOf(paymentId);
    const built = await submitAndBuild(batch);
    await expectEmptiedAndCancelled(batch, built);
    const ref = (await ok(account, 'GET', `/v1/emandate?Token=${who.token}`)).debit_ContractRef;
    const rule =
      `eMandate ${ref}: the amount 30000 is not the fixed ` +
      `mandate's instalment 29999 (minor units, after 0 year(s) of escalation)`;
    expect(built.BuildError).toBe(`payment ${paymentId} (customer ${who.customerId}): ${rule}`);
    // Nothing reached the gateway: the invoice counted no try, and shows the rule.
    await expectLeft(paymentId, invoiceId, new RegExp(`^${rule.replace(/[()]/g, '\\$&')}$`), true);
  });

  it('refuses a variable mandate’s line above the maximum, and takes one at it', async () => {
    const who = await mandated({ debit_VariableAmts: true });
    const over = await openBatch();
    const paymentId = await addLine(over, who, 449.99);
    const invoiceId = await invoiceOf(paymentId);
    const refused = await submitAndBuild(over);
    await expectEmptiedAndCancelled(over, refused);
    expect(refused.BuildError).toMatch(
      new RegExp(
        `^payment ${paymentId} \\(customer ${who.customerId}\\): .*more than the mandate's maximum 44998`,
      ),
    );
    await expectLeft(paymentId, invoiceId, /more than the mandate's maximum 44998/, true);
  });

  it('refuses an action date off the mandate’s schedule', async () => {
    // The mandate collects on the day after the batch's action date.
    const who = await mandated({ debit_ActionDay: dayOf(plusDays(actionDate, 1)) });
    const batch = await openBatch();
    const paymentId = await addLine(batch, who, 299.99);
    const invoiceId = await invoiceOf(paymentId);
    const built = await submitAndBuild(batch);
    await expectEmptiedAndCancelled(batch, built);
    expect(built.BuildError).toMatch(
      new RegExp(
        `^payment ${paymentId} .*the action date ${actionDate} is not on the mandate's Monthly schedule`,
      ),
    );
    await expectLeft(paymentId, invoiceId, /is not on the mandate's Monthly schedule/, false);
  });

  it('refuses an action date before the mandate’s start date', async () => {
    const who = await mandated({ debit_StartDate: plusDays(actionDate, 1) });
    const batch = await openBatch();
    await addLine(batch, who, 299.99);
    const built = await submitAndBuild(batch);
    await expectEmptiedAndCancelled(batch, built);
    expect(built.BuildError).toMatch(/is before the mandate's start date/);
  });

  it('refuses a second collection in the same period, but not under an ad hoc mandate', async () => {
    const monthly = await mandated();
    const batch = await openBatch();
    const first = await addLine(batch, monthly, 299.99);
    const second = await addLine(batch, monthly, 299.99);
    const secondInvoice = await invoiceOf(second);
    const adHoc = await mandated({ debit_Frequency: 'AdHoc' });
    const another = await openBatch();
    await addLine(another, adHoc, 299.99);
    await addLine(another, adHoc, 299.99);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: another, ActionDate: actionDate });

    const built = await submitAndBuild(batch);
    // The first line goes to the gateway; the second leaves, and the build did not fail.
    expect(built.State).toBe('submitted');
    expect(built.BuildError).toBeNull();
    expect(built.Payments.map((line: { paymentID: number }) => line.paymentID)).toEqual([first]);
    await expectLeft(
      second,
      secondInvoice,
      new RegExp(`already collects on ${actionDate} in the same Monthly period$`),
      false,
    );
    expect((await ok(account, 'GET', `/v1/batches/${another}`)).State).toBe('submitted');
  });

  it('refuses a line once an earlier batch collected in the period', async () => {
    const who = await mandated();
    const first = await openBatch();
    await addLine(first, who, 299.99);
    const again = await openBatch();
    const paymentId = await addLine(again, who, 299.99);
    const invoiceId = await invoiceOf(paymentId);
    // Both submitted today; the run builds them in turn, the first one first.
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: first, ActionDate: actionDate });
    const built = await submitAndBuild(again);
    expect((await ok(account, 'GET', `/v1/batches/${first}`)).State).toBe('submitted');
    await expectEmptiedAndCancelled(again, built);
    expect(built.BuildError).toMatch(new RegExp(`^payment ${paymentId} .*already collects on ${actionDate}`));
    await expectLeft(paymentId, invoiceId, new RegExp(`already collects on ${actionDate}`), false);
  });
});
