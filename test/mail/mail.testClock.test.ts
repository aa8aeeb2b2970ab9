import { describe, expect, it } from 'vitest';
import { boundary } from '../../src/core/periods.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import { eventually } from '../helpers/service.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { queuedMail } from '../helpers/outside.ts';

// Mail made on a test account's clock follows the outbox's one rule (docs/spec-decisions.md, "Account settings and test accounts"): a new
// message is due at once, whatever time the account's clock shows; only a retry waits, on the service's clock.
// Without SMTP_URL every message ends `skipped`.

const t = useTestService();

const outbox = (accountId: number) => queuedMail(t, { accountId });

/** Waits until none of the account's messages is pending any more, and answers them. */
async function settled(accountId: number) {
  return eventually(async () => {
    const mails = await outbox(accountId);
    return mails.length > 0 && mails.every((mail) => mail.status !== 'pending') ? mails : undefined;
  });
}

/** Renewal invoices sent to a customer of the account, then the clock moved `months` ahead of the real time. */
async function renewalsAhead(as: TestAccount, months: number): Promise<string> {
  // Only the invoices' own e-mails: the reminders of these unpaid invoices would add theirs.
  await ok(as, 'PUT', '/v1/account', { SendInvoiceReminders: false }, 204);
  const plan = await createPlan(as, { chargePrice: 30 });
  const customerId = await createCustomer(as, { autoSendInvoice: true, Email: 'renewals@example.com' });
  await subscribe(as, customerId, plan);
  // The day the last renewal falls on (adding months to 29 November rolled over to 1 March), at this time of day.
  const now = new Date().toISOString();
  const to = new Date(`${boundary(now.slice(0, 10), { count: 1, unit: 'months' }, months)}${now.slice(10)}`);
  const moved = await ok(as, 'POST', '/v1/test-clock/advance', { To: to.toISOString() }, 200);
  expect(moved.Billed.invoices).toBe(months);
  return to.toISOString();
}

describe('mail made while a test clock advances', () => {
  it('is settled like any other: without SMTP_URL, skipped, even when the clock is ahead of the real time', async () => {
    const as = await t.newAccount('Clock ahead', { isTest: true });
    const to = await renewalsAhead(as, 3);

    const mails = await settled(as.accountId);
    // The first invoice's and one per renewal, each stamped with the account's clock when it was made.
    expect(mails).toHaveLength(4);
    expect(mails.map((mail) => [mail.status, mail.lastError])).toEqual(
      mails.map(() => ['skipped', 'SMTP_URL is not configured']),
    );
    expect(mails.at(-1)!.createdAt.slice(0, 10)).toBe(to.slice(0, 10));
  });

  it('as is mail made by a request after the move, on the clock the account now shows', async () => {
    const as = await t.newAccount('Clock ahead, then a request', { isTest: true });
    await renewalsAhead(as, 1);
    await settled(as.accountId);

    const customerId = await createCustomer(as, { Email: 'later@example.com' });
    const invoice = await issuedInvoice(as, { customerId, description: 'Setup', amount: 10 });
    await ok(as, 'PUT', `/v1/invoices/${invoice.invoiceID}/send`, undefined, 204);
    const mails = await settled(as.accountId);
    expect(mails).toHaveLength(3);
    expect(mails.every((mail) => mail.status === 'skipped')).toBe(true);
  });

  it('and a live account’s mail is settled by the same rule', async () => {
    const as = await t.newAccount('Live');
    const plan = await createPlan(as, { chargePrice: 30 });
    const customerId = await createCustomer(as, { autoSendInvoice: true, Email: 'live@example.com' });
    await subscribe(as, customerId, plan);
    const mails = await settled(as.accountId);
    expect(mails.map((mail) => mail.status)).toEqual(['skipped']);
  });
});
