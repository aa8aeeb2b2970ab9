import { describe, expect, it } from 'vitest';
import { addBusinessDays, returnWindowEnd } from '../../src/core/bankingDays.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { customerWithBankAccount } from '../helpers/invoices.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
import {
  addLine,
  bankInvoice,
  download,
  invoiceOf,
  openBatch,
  paymentOf,
  submitAndBuild,
  uploadReturns,
} from './bankFileFixtures.ts';
import { advanceTo, debitAccount, plusDays, submittedDebit } from './fixtures.ts';
import type { DebitSetup } from './fixtures.ts';

// What Netcash's statement does to a batch, and when the customer hears of it (docs/gateways/netcash.md,
// "Statements"; docs/gateways.md, "Receipts after the return window"): over HTTP with the test clock, the e-mails
// read from a real SMTP receiver.

const SERVICE_KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';

const t = useTestService({ smtp: true });
const { smtp } = t;

/** A statement entry as Netcash writes it: date, type, id, description, cents, sign, VAT, Extra 1-3, ledger. */
const entry = (date: string, type: string, cents: number, sign: '+' | '-', extra1: number | string) =>
  [
    date.replaceAll('-', ''),
    type,
    '70001',
    type === 'DRU' ? 'Debit order unpaid - Code: 02' : 'Dated debit order',
    String(cents),
    sign,
    '0',
    String(extra1),
    '',
    '',
    'Debtors',
  ].join('\t');

interface Debtor {
  email: string;
  invoiceId: number;
  paymentId: number;
}

/**
 * A netcash gateway's batch of two debits, X of R100.00 and Y of R349.50, each customer with an address of its
 * own; built, downloaded, and processing on its action date.
 */
async function processingBatch(): Promise<{
  setup: DebitSetup;
  token: string;
  actionDate: string;
  x: Debtor;
  y: Debtor;
}> {
  const setup = await debitAccount(t, 'ZAR');
  const ctx = await accountContext(t, setup.account.accountId);
  const gateway = await addGateway(ctx, {
    type: 'netcash',
    friendlyName: 'Netcash',
    settings: { serviceKey: SERVICE_KEY, uploadThroughWebService: false },
  });
  const listed = (await ok(setup.account, 'GET', '/v1/gateways')) as any[];
  const gatewayToken = listed.find((g) => g.gatewayID === gateway.id).GatewayToken;
  const token = await openBatch(setup, gatewayToken, 'ZAR');
  const debtors: Debtor[] = [];
  for (const [name, number, amount] of [
    ['Xolani', '62001234567', 100],
    ['Yusuf', '1234567890', 349.5],
  ] as const) {
    const email = `${name.toLowerCase()}-${setup.account.accountId}@example.com`;
    const customer = await customerWithBankAccount(setup.account, {
      customer: { Name: name, LastName: 'Debtor', Email: email, CurrencyCode: 'ZAR' },
      bankAccount: {
        Method: 'debit_order',
        AccountType: 'Current',
        AccountHolder: `${name} Debtor`,
        Bank: 'Standard Bank',
        AccountNumber: number,
        BranchCode: '250655',
      },
      validateAt: gateway.id,
    });
    const invoiceId = await bankInvoice(setup, gateway.id, customer, amount);
    debtors.push({ email, invoiceId, paymentId: await addLine(setup, token, customer, invoiceId, amount) });
  }
  const actionDate = await submitAndBuild(setup, token, 'debit_order');
  await download(setup.account, token);
  await advanceTo(setup.account, actionDate);
  return { setup, token, actionDate, x: debtors[0]!, y: debtors[1]! };
}

const upload = (account: TestAccount, token: string, statement: string) =>
  account.request('POST', `/v1/batches/${token}/returns`, {
    rawBody: statement,
    headers: { 'content-type': 'text/plain' },
  });

/** The subjects of the e-mails the customer received, once every e-mail the account queued went out. */
async function subjectsTo(account: TestAccount, email: string): Promise<string[]> {
  return (await deliveredTo(t, smtp, account.accountId, email)).map((mail) => mail.subject);
}
const receipts = (subjects: string[]) => subjects.filter((subject) => subject.startsWith('Receipt from'));

describe("a netcash batch's statements", () => {
  it('are read whatever their line ends, refused whole when an entry does not parse, and an unpaid must match its debit', async () => {
    const { setup, token, actionDate, x, y } = await processingBatch();
    const { account } = setup;

    // A statement whose third line does not parse is refused, naming the line; its collection of X is not applied.
    const broken = [
      entry(actionDate, 'OBL', 0, '+', ''),
      entry(actionDate, 'TDD', 100_00, '+', x.paymentId),
      entry(actionDate, 'TDD', 349_50, '+', y.paymentId).replace('\t34950\t', '\t349.50\t'),
    ].join('\r\n');
    const refused = await upload(account, token, broken);
    expect(refused.status, refused.text).toBe(422);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({
      code: 'bank_file_unreadable',
      fields: [{ field: 'document', message: 'line 3: the amount is not whole cents' }],
    });
    expect((await paymentOf(account, x.paymentId)).Status).toBe('Pending');

    // The same day written with CR alone between lines (a file saved on an old Mac): both collections read.
    const collected = [
      entry(actionDate, 'OBL', 0, '+', ''),
      entry(actionDate, 'TDD', 100_00, '+', x.paymentId),
      entry(actionDate, 'TDD', 349_50, '+', y.paymentId),
    ].join('\r');
    const read = await upload(account, token, collected);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ Returned: 0, Settled: 2, Unchanged: 0, Mismatched: [] });

    // An unpaid of R0.01 against X's R100.00 and one with the wrong sign against Y are told, and change nothing.
    const next = addBusinessDays(actionDate, 1, 'debit_order');
    await advanceTo(account, next);
    const unpaids = [
      entry(next, 'DRU', 1, '-', x.paymentId),
      entry(next, 'DRU', 349_50, '+', y.paymentId),
    ].join('\n');
    const mismatched = await uploadReturns(account, token, unpaids);
    expect(mismatched.status, mismatched.text).toBe(200);
    expect(mismatched.body).toEqual({
      Returned: 0,
      Settled: 0,
      Unchanged: 0,
      Mismatched: [
        {
          Line: 1,
          paymentID: x.paymentId,
          Reason: 'an unpaid (DRU) of -R0.01 does not match the debit of R100.00: it must be -R100.00',
        },
        {
          Line: 2,
          paymentID: y.paymentId,
          Reason: 'an unpaid (DRU) of +R349.50 does not match the debit of R349.50: it must be -R349.50',
        },
      ],
    });
    for (const debtor of [x, y]) {
      expect((await paymentOf(account, debtor.paymentId)).Status).toBe('Allocated');
      expect((await invoiceOf(account, debtor.invoiceId)).Status).toBe('Paid');
    }
  });

  it("send a debit's receipt only once the return window has passed, never before an unpaid", async () => {
    const { setup, token, actionDate, x, y } = await processingBatch();
    const { account } = setup;
    const windowEnd = returnWindowEnd('debit_order', actionDate);

    // The statement of the action date: both collected. Settled at once, but nobody is sent a receipt yet.
    const collected = [
      entry(actionDate, 'TDD', 100_00, '+', x.paymentId),
      entry(actionDate, 'TDD', 349_50, '+', y.paymentId),
    ].join('\r\n');
    expect((await upload(account, token, collected)).body).toMatchObject({ Settled: 2 });
    expect((await invoiceOf(account, x.invoiceId)).Status).toBe('Paid');
    for (const debtor of [x, y]) expect(receipts(await subjectsTo(account, debtor.email))).toEqual([]);

    // Two business days on, within the window, Y comes back unpaid: Y is told its payment failed, and only that.
    const later = addBusinessDays(actionDate, 2, 'debit_order');
    await advanceTo(account, later);
    const returned = await upload(account, token, entry(later, 'DRU', 349_50, '-', y.paymentId));
    expect(returned.body).toEqual({ Returned: 1, Settled: 0, Unchanged: 0, Mismatched: [] });
    const toY = await subjectsTo(account, y.email);
    expect(toY.filter((subject) => subject.startsWith('Payment of invoice'))).toHaveLength(1);
    expect(receipts(toY)).toEqual([]);

    // The last day of the window: still no receipt. The day after, X's receipt, once; Y none, ever.
    await advanceTo(account, windowEnd);
    expect(receipts(await subjectsTo(account, x.email))).toEqual([]);
    const succeeded = async () =>
      (await eventsOf(account, 'invoice', x.invoiceId)).filter((e) => e.type === 'invoice.payment_succeeded');
    expect(await succeeded()).toHaveLength(0);
    await advanceTo(account, plusDays(windowEnd, 1));
    await advanceTo(account, plusDays(windowEnd, 2));
    expect(receipts(await subjectsTo(account, x.email))).toEqual([
      expect.stringMatching(/: ZAR 100\.00 received$/),
    ]);
    expect(await succeeded()).toHaveLength(1);
    expect(receipts(await subjectsTo(account, y.email))).toEqual([]);
    expect((await paymentOf(account, y.paymentId)).Status).toBe('Failed');
  });
});

describe("a debit's receipt on the test gateway", () => {
  it('waits for the return window when a person records the line paid before it', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const debit = await submittedDebit(setup, 'debit_order');
    await advanceTo(setup.account, debit.actionDate);
    const paid = await setup.account.request('PUT', `/v1/batches/payments/${debit.paymentId}/result`, {
      body: { Status: 'paid' },
    });
    expect(paid.status, paid.text).toBe(204);
    expect((await invoiceOf(setup.account, debit.invoiceId)).Status).toBe('Paid');
    expect(receipts(await subjectsTo(setup.account, 'ada@example.com'))).toEqual([]);

    await advanceTo(setup.account, plusDays(returnWindowEnd('debit_order', debit.actionDate), 1));
    expect(receipts(await subjectsTo(setup.account, 'ada@example.com'))).toHaveLength(1);
  });
});
