import { describe, expect, it } from 'vitest';
import { returnWindowEnd } from '../../src/core/bankingDays.ts';
import { submissionNoticeDate } from '../../src/modules/batches/index.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { createPlan, invoicesOf, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { runCli } from '../helpers/cli.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount } from '../helpers/service.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
import type { ReadMail } from '../collections/notices.fixtures.ts';
import {
  bankAccountBody,
  mandateBody,
  newCustomer,
  signedMandate,
  t,
  useMandatesService,
} from '../mandates/fixtures.ts';
import { download, expectProblem, uploadReturns } from './bankFileFixtures.ts';
import { advanceTo as advanceAccount, plusDays } from './fixtures.ts';

// docs/gateways.md, "Months that stay in step", its worked year: a customer billed R250.00 on the 1st of each
// month of 2027, due on the 10th, collected through Netcash under a monthly eMandate on the 10th (variable amounts,
// at most R375.00, 1.5 times the instalment; account ending 9876). February's debit is returned 02: R250.00 more on
// March's debit would pass the maximum, so the customer is asked to pay it, and pays by EFT. May's batch is
// submitted two days after its last safe day: no May date is left, and June's debit cannot carry it either, so
// the customer is asked again. In August an extra invoice of R100.00 due the same day joins August's debit
// (R350.00). Every month's own invoice is presented on its own date, read from the Netcash files; the customer is
// told of each date change before it, read from a real SMTP receiver.

const clock = movableClock('2026-12-30T08:00:00.000Z');
// The mandates' fixtures start the service (their signing page is where the mandate is signed), with an SMTP
// receiver of its own.
useMandatesService({ clock, smtp: true });

const SERVICE_KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';
const CUSTOMER = 'thandi@nkosi.example';
const STAFF = 'finance@northwind.example';
const ACCOUNT_NUMBER = '62001239876';

/** Each month's own date: the 10th, or the Monday after when the 10th is a Saturday or a Sunday. */
const OWN_DATES = [
  '2027-01-11',
  '2027-02-10',
  '2027-03-10',
  '2027-04-12',
  '2027-05-10',
  '2027-06-10',
  '2027-07-12',
  '2027-08-10',
  '2027-09-10',
  '2027-10-11',
  '2027-11-10',
  '2027-12-10',
] as const;

interface NetcashFile {
  actionDate: string;
  /** Each transaction record: its amount in cents and its Extra 1, the line's paymentID. */
  lines: { cents: number; paymentId: number }[];
}

/** The batch's Netcash file as Netcash reads it: the header's action date, and its transaction records. */
async function netcashFile(account: TestAccount, token: string): Promise<NetcashFile> {
  const records = (await download(account, token)).text
    .split('\r\n')
    .filter((line) => line !== '')
    .map((line) => line.split('\t'));
  const header = records.find((record) => record[0] === 'H')!;
  const date = header[5]!;
  return {
    actionDate: `${date.slice(0, 4)}-${date.slice(4, 6)}-${date.slice(6)}`,
    lines: records
      .filter((record) => record[0] === 'T')
      .map((record) => ({ cents: Number(record[8]), paymentId: Number(record[9]) })),
  };
}

/** A Netcash statement entry: date, type, id, description, cents, sign, VAT, Extra 1-3, ledger. */
const entry = (date: string, type: string, description: string, cents: number, sign: string, extra1 = '') =>
  [
    date.replaceAll('-', ''),
    type,
    '70001',
    description,
    String(cents),
    sign,
    '0',
    extra1,
    '',
    '',
    'Debtors',
  ].join('\t');

/** The account's open batch of this action date. */
async function openBatchOf(account: TestAccount, actionDate: string): Promise<any> {
  const batches = (await ok(account, 'GET', '/v1/batches?page_size=200')) as any[];
  const found = batches.filter((b) => b.State === 'open' && b.ActionDate.slice(0, 10) === actionDate);
  expect(found, `an open batch for ${actionDate}`).toHaveLength(1);
  return ok(account, 'GET', `/v1/batches/${found[0].BatchToken}`);
}

/**
 * Moves the account's test clock to noon of `date` (each day's run), and the service's clock to its end: the mail
 * worker sends what is due by the service's clock, and the account's mail is dated by its own.
 */
async function advanceTo(account: TestAccount, date: string) {
  clock.set(`${date}T23:59:59.000Z`);
  return advanceAccount(account, date);
}

const mailsOf = (account: TestAccount, to: string) => deliveredTo(t, t.smtp, account.accountId, to);

/** The customer's EFT, recorded by hand against the invoice. */
const payByEft = (account: TestAccount, customerID: number, invoiceID: number, date: string) =>
  ok(account, 'POST', '/v1/payments', {
    customerID,
    Amount: 250,
    CurrencyCode: 'ZAR',
    Date: date,
    Method: 'eft',
    allocations: [{ invoiceID, amountApplied: 250 }],
  });
const flat = (mail: ReadMail) => mail.text.replace(/\s+/g, ' ');

describe('a year of monthly debit orders through Netcash', () => {
  it('presents every month on its own date, a 02 and a late batch never pushing a later month out', async () => {
    const account = await t.newAccount('Northwind', { isTest: true, timeZone: 'UTC', currencyCode: 'ZAR' });
    await ok(account, 'PUT', '/v1/account', {
      LegalName: 'Northwind Software Ltd',
      StaffEmail: STAFF,
      InvoiceDueDays: 9,
      PaymentInstructions: 'First National Bank, account 62000000001, branch 250655',
    });
    const ctx = await accountContext(t, account.accountId);
    const netcash = await addGateway(ctx, {
      type: 'netcash',
      friendlyName: 'Netcash',
      settings: { serviceKey: SERVICE_KEY, uploadThroughWebService: false },
    });
    const token = await signedMandate(
      account,
      mandateBody('2027-01-01', {
        debit_ActionDay: 10,
        debit_Amt: 250,
        debit_MaxAmt: 375,
        debit_VariableAmts: true,
        debit_Escalation: 0,
        Email: CUSTOMER,
        // Netcash takes account numbers of at most 11 digits.
        bank_AccNumber: ACCOUNT_NUMBER,
      }),
    );
    const customerId = await newCustomer(account, {
      CurrencyCode: 'ZAR',
      Email: CUSTOMER,
      PaymentMethod: 'debit_order',
      PrimaryGatewayID: netcash.id,
      // The invoices' own e-mails (and their PDFs) are not what this story reads.
      autoSendInvoice: false,
    });
    await ok(
      account,
      'POST',
      '/v1/paymentmethods/bankaccount',
      bankAccountBody(customerId, token, { AccountNumber: ACCOUNT_NUMBER }),
      200,
    );
    await ok(account, 'POST', '/v1/test-clock/advance', { To: '2027-01-01T00:00:00.000Z' }, 200);
    await subscribe(account, customerId, await createPlan(account, { chargePrice: 250, currency: 'ZAR' }));

    const files = new Map<string, NetcashFile>();
    /**
     * One month as its finance person runs it: on the notice day (two business days before the last safe day) the
     * batch of the month's own date is there and the staff are told; submitted that day (by the e-mail's own
     * command line in January), built the next, its file downloaded for Netcash; `returned` is Netcash's statement
     * of an unpaid 02 two days after the action date; the return window then passes.
     */
    async function month(actionDate: string, how: { cli?: boolean; returned?: boolean } = {}) {
      const notice = submissionNoticeDate('debit_order', actionDate);
      await advanceTo(account, notice);
      const batch = await openBatchOf(account, actionDate);
      const staff = (await mailsOf(account, STAFF)).filter((mail) =>
        mail.subject.startsWith(`Submit batch ${batch.BatchToken} by `),
      );
      expect(staff).toHaveLength(1);
      const command = `billing batch submit --account ${account.accountId} ${batch.BatchToken}`;
      expect(flat(staff[0]!)).toContain(command);
      if (how.cli) {
        const result = await runCli(command.split(' ').slice(1), t.env, 60_000);
        expect(result.code, result.stderr).toBe(0);
        expect(result.stdout).toContain(`Batch ${batch.BatchToken} submitted`);
      } else {
        await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: batch.BatchToken });
      }
      await advanceTo(account, plusDays(notice, 1));
      const built = await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`);
      expect(built, JSON.stringify(built)).toMatchObject({ State: 'submitted', BuildError: null });
      const file = await netcashFile(account, batch.BatchToken);
      files.set(actionDate, file);
      await advanceTo(account, actionDate);
      if (how.returned) {
        const on = plusDays(actionDate, 2);
        await advanceTo(account, on);
        const [line] = file.lines;
        const statement = [
          entry(on, 'TDD', 'Dated debit order', line!.cents, '+', String(line!.paymentId)),
          entry(on, 'DRU', 'Debit order unpaid - Code: 02', line!.cents, '-', String(line!.paymentId)),
        ].join('\r\n');
        const report = await uploadReturns(account, batch.BatchToken, statement);
        expect(report.body).toEqual({ Returned: 1, Settled: 0, Unchanged: 0, Mismatched: [] });
        return batch;
      }
      await advanceTo(account, plusDays(returnWindowEnd('debit_order', actionDate), 1));
      expect((await ok(account, 'GET', `/v1/batches/${batch.BatchToken}`)).State).toBe('processed');
      return batch;
    }

    await month(OWN_DATES[0], { cli: true });
    await month(OWN_DATES[1], { returned: true });
    const [, february] = await invoicesOf(account, customerId);
    // Returned 02 on Friday 12 February. Netcash takes it again only on the mandate's next date, which is March's
    // own debit, and 250.00 + 250.00 is over the mandate's 375.00: the customer is asked to pay it.
    expect(february).toMatchObject({ Balance: 250, NumTries: 1, NextTryDate: null });
    expect(february.CollectionProblem).toMatch(
      /^handed to the customer to pay: the debit order of 2027-03-10/,
    );
    const failed = (await mailsOf(account, CUSTOMER)).filter((mail) => mail.subject.includes('failed'));
    expect(failed).toHaveLength(1);
    expect(flat(failed[0]!)).toContain(
      'We will not debit this amount again: your debit order mandate allows one debit a month, and your next debit order collects that month’s invoice. Please pay ZAR 250.00 on the page below.',
    );
    expect(flat(failed[0]!)).toContain(
      `Or pay by EFT, with ${february.invoiceNum} as your reference: First National Bank, account 62000000001, branch 250655`,
    );
    await advanceTo(account, '2027-02-16');
    await payByEft(account, customerId, february.invoiceID, '2027-02-16');

    // March: its own debit on its own date, alone.
    await month(OWN_DATES[2]);
    await month(OWN_DATES[3]);

    // May: the staff are told on Tuesday 4 May, two business days before Thursday 6 May, the last safe day; not
    // the day before, nor on the last safe day itself.
    await advanceTo(account, '2027-05-03');
    const mayNotices = async () =>
      (await mailsOf(account, STAFF)).filter((mail) =>
        mail.subject.includes('debit orders for Monday 10 May 2027'),
      );
    expect(await mayNotices()).toEqual([]);
    await advanceTo(account, '2027-05-04');
    const [mayNotice] = await mayNotices();
    expect(mayNotice!.subject).toMatch(
      /^Submit batch \S+ by Thursday 6 May 2027: debit orders for Monday 10 May 2027$/,
    );
    expect(flat(mayNotice!)).toContain(
      'holds 1 debit order(s) for ZAR 250.00, to be collected on Monday 10 May 2027',
    );
    expect(flat(mayNotice!)).toContain(`billing batch list --account ${account.accountId}`);
    expect(flat(mayNotice!)).not.toContain('/v1/');
    const may = await openBatchOf(account, '2027-05-10');

    // Submitted on Saturday 8 May, two days late: the mandate allows no other date in May, and June's own debit
    // cannot carry May's too; nothing is left to submit. The customer is told that day, before 10 May.
    await advanceTo(account, '2027-05-08');
    expectProblem(
      await account.request('PUT', '/v1/batches/submit', { body: { BatchToken: may.BatchToken } }),
      409,
      'batch_too_late',
    );
    expect((await ok(account, 'GET', `/v1/batches/${may.BatchToken}`)).State).toBe('cancelled');
    const mayInvoice = (await invoicesOf(account, customerId))[4];
    expect(mayInvoice).toMatchObject({ Balance: 250, NumTries: 0, NextTryDate: null });
    expect(mayInvoice.CollectionProblem).toMatch(
      /^handed to the customer to pay: the debit order of 2027-06-10/,
    );
    const notTaken = (await mailsOf(account, CUSTOMER)).filter((mail) =>
      mail.subject.includes('will not be taken'),
    );
    expect(notTaken.map((mail) => mail.subject)).toEqual([
      `Your debit order for invoice ${mayInvoice.invoiceNum} will not be taken on 10 May 2027`,
    ]);
    expect(flat(notTaken[0]!)).toContain(
      `The debit order of ZAR 250.00 for invoice ${mayInvoice.invoiceNum}, announced for 10 May 2027, will not be debited from bank account ending 9876.`,
    );
    expect(flat(notTaken[0]!)).toContain('Our debit order batch reached the bank too late for that date.');
    expect(flat(notTaken[0]!)).toContain('Please pay ZAR 250.00 on the page below.');
    await advanceTo(account, '2027-05-14');
    await payByEft(account, customerId, mayInvoice.invoiceID, '2027-05-14');

    await month(OWN_DATES[5]);
    await month(OWN_DATES[6]);
    // August: an extra invoice of R100.00, due the same day as August's own, joins its debit: 350.00 ≤ 375.00.
    await advanceTo(account, '2027-08-01');
    const extra = await ok(account, 'POST', '/v1/invoices', {
      customerID: customerId,
      InvoiceDate: '2027-08-01',
      DueDate: '2027-08-10',
      Charges: [{ Descrip: 'Extra seats', Qty: 1, UnitCostEx: 100 }],
    });
    for (const actionDate of OWN_DATES.slice(7)) await month(actionDate);

    // Every month's own invoice on its own date: eleven files (May's batch sent none), each dated its month's own
    // date, August's one debit of 250.00 + 100.00.
    expect([...files.keys()]).toEqual(OWN_DATES.filter((date) => date !== '2027-05-10'));
    for (const [actionDate, file] of files) {
      expect(file.actionDate).toBe(actionDate);
      expect(file.lines.map((line) => line.cents)).toEqual([actionDate === '2027-08-10' ? 35_000 : 25_000]);
    }
    const invoices = await invoicesOf(account, customerId);
    expect(invoices).toHaveLength(13);
    for (const invoice of invoices)
      expect(invoice).toMatchObject({ Status: 'Paid', Balance: 0, NextTryDate: null });
    expect(invoices.filter((invoice) => invoice.CollectionProblem !== null).map((i) => i.invoiceID)).toEqual([
      february.invoiceID,
      mayInvoice.invoiceID,
    ]);
    const august = (await ok(
      account,
      'GET',
      `/v1/payments/${files.get('2027-08-10')!.lines[0]!.paymentId}`,
    )) as any;
    expect(august.Status).toBe('Allocated');
    expect(august.Allocations.map((applied: any) => [applied.invoiceID, applied.amountApplied])).toEqual([
      [invoices[7].invoiceID, 250],
      [extra.invoiceID, 100],
    ]);
    // Nothing was left out of a batch, nor handed over: no staff e-mail says so.
    const staff = await mailsOf(account, STAFF);
    expect(staff.filter((mail) => /left out|cannot be collected/.test(mail.subject))).toEqual([]);
  }, 600_000);
});
