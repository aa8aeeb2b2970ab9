import { beforeEach, describe, expect, it } from 'vitest';
import { earliestActionDate } from '../../src/core/batches.ts';
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
// checked against it when the batch is built; one that breaks it sends the batch back to open with a BuildError
// naming the line and the rule, and nothing reaches the gateway.

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
    const built = await submitAndBuild(batch);
    expect(built.State).toBe('open');
    const ref = (await ok(account, 'GET', `/v1/emandate?Token=${who.token}`)).debit_ContractRef;
    expect(built.BuildError).toBe(
      `payment ${paymentId} (customer ${who.customerId}): eMandate ${ref}: the amount 30000 is not the fixed ` +
        `mandate's instalment 29999 (minor units, after 0 year(s) of escalation)`,
    );
    expect((await eventsOf(account, 'batch', batch)).map((e) => e.type)).toContain('batch.build_failed');
    // Nothing reached the gateway: the invoice counted no try.
    const payment = await ok(account, 'GET', `/v1/payments/${paymentId}`);
    expect(payment.Status).not.toBe('failed');
  });

  it('refuses a variable mandate’s line above the maximum, and takes one at it', async () => {
    const who = await mandated({ debit_VariableAmts: true });
    const over = await openBatch();
    const paymentId = await addLine(over, who, 449.99);
    const refused = await submitAndBuild(over);
    expect(refused.State).toBe('open');
    expect(refused.BuildError).toMatch(
      new RegExp(
        `^payment ${paymentId} \\(customer ${who.customerId}\\): .*more than the mandate's maximum 44998`,
      ),
    );
  });

  it('refuses an action date off the mandate’s schedule', async () => {
    // The mandate collects on the day after the batch's action date.
    const who = await mandated({ debit_ActionDay: dayOf(plusDays(actionDate, 1)) });
    const batch = await openBatch();
    const paymentId = await addLine(batch, who, 299.99);
    const built = await submitAndBuild(batch);
    expect(built.State).toBe('open');
    expect(built.BuildError).toMatch(
      new RegExp(
        `^payment ${paymentId} .*the action date ${actionDate} is not on the mandate's Monthly schedule`,
      ),
    );
  });

  it('refuses an action date before the mandate’s start date', async () => {
    const who = await mandated({ debit_StartDate: plusDays(actionDate, 1) });
    const batch = await openBatch();
    await addLine(batch, who, 299.99);
    const built = await submitAndBuild(batch);
    expect(built.BuildError).toMatch(/is before the mandate's start date/);
  });

  it('refuses a second collection in the same period, but not under an ad hoc mandate', async () => {
    const monthly = await mandated();
    const batch = await openBatch();
    await addLine(batch, monthly, 299.99);
    const second = await addLine(batch, monthly, 299.99);
    const adHoc = await mandated({ debit_Frequency: 'AdHoc' });
    const another = await openBatch();
    await addLine(another, adHoc, 299.99);
    await addLine(another, adHoc, 299.99);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: another, ActionDate: actionDate });

    const built = await submitAndBuild(batch);
    expect(built.State).toBe('open');
    expect(built.BuildError).toMatch(
      new RegExp(`^payment ${second} .*already collects on ${actionDate} in the same Monthly period$`),
    );
    expect((await ok(account, 'GET', `/v1/batches/${another}`)).State).toBe('submitted');
  });

  it('refuses a line once an earlier batch collected in the period', async () => {
    const who = await mandated();
    const first = await openBatch();
    await addLine(first, who, 299.99);
    const again = await openBatch();
    const paymentId = await addLine(again, who, 299.99);
    // Both submitted today; the run builds them in turn, the first one first.
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: first, ActionDate: actionDate });
    const built = await submitAndBuild(again);
    expect((await ok(account, 'GET', `/v1/batches/${first}`)).State).toBe('submitted');
    expect(built.BuildError).toMatch(new RegExp(`^payment ${paymentId} .*already collects on ${actionDate}`));
  });
});
