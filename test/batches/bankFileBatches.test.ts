import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { earliestActionDate, returnWindowEnd } from '../../src/core/batches.ts';
import { ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { startTestService } from '../helpers/service.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import {
  ACH_ORIGINATOR,
  SEPA_CREDITOR,
  achAccount,
  addBankFileGateway,
  addLine,
  bankCustomer,
  bankInvoice,
  debtorLines,
  nachaReturnFile,
  openBatch,
  pain002,
  readNacha,
  readPain008,
  sepaAccount,
  validatePain008,
} from './bankFileFixtures.ts';
import type { DebtorLine } from './bankFileFixtures.ts';
import { advanceTo, bankAccount, debitAccount, debitCustomer, debitInvoice, plusDays } from './fixtures.ts';

// Debits collected by bank files (docs/gateways.md, "The bankfile gateway"): a batch of the bankfile gateway is
// built into a SEPA pain.008 or a NACHA file, which the business downloads and takes to its bank; the bank's
// pain.002 or NACHA return file comes back through the API and fails or settles the lines; what nobody returned
// settles once the rail's window passes.

let t: TestService;
beforeAll(async () => {
  t = await startTestService();
});
afterAll(async () => {
  await t?.close();
});

const batchOf = (account: TestAccount, token: string) => ok(account, 'GET', `/v1/batches/${token}`);
const paymentOf = (account: TestAccount, id: number) => ok(account, 'GET', `/v1/payments/${id}`);
const invoiceOf = (account: TestAccount, id: number) => ok(account, 'GET', `/v1/invoices/${id}`);

const fileOf = (account: TestAccount, token: string) => account.request('GET', `/v1/batches/${token}/file`);
const uploadReturns = (account: TestAccount, token: string, document: string) =>
  account.request('POST', `/v1/batches/${token}/returns`, { body: { document } });

async function download(account: TestAccount, token: string): Promise<ApiResponse> {
  const res = await fileOf(account, token);
  expect(res.status, res.text).toBe(200);
  return res;
}

function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body.code, res.text).toBe(code);
}

/** The file name the download offers. */
function fileNameOf(res: ApiResponse): string {
  const disposition = res.headers.get('content-disposition') ?? '';
  const match = /^attachment; filename="([^"]+)"$/.exec(disposition);
  expect(match, `content-disposition: ${disposition}`).not.toBeNull();
  return match![1]!;
}

describe('a SEPA batch of a bankfile gateway', () => {
  it('is built into a pain.008 the XSD accepts, leaves on its first download, and takes the bank’s pain.002', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    const [rejected, accepted, silent] = (await debtorLines(setup, gateway.gatewayId, token, 'EUR', [
      { details: sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'), amount: 100 },
      { details: sepaAccount('Anna Gruber', 'AT611904300234573201', 'BKAUATWW'), amount: 49.99 },
      { details: sepaAccount('Max Müller', 'DE89370400440532013000', 'COBADEFFXXX'), amount: 1250 },
    ])) as [DebtorLine, DebtorLine, DebtorLine];

    // Submitted today: in build until the next run, and no file yet.
    const actionDate = earliestActionDate('sepa', today);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
    expect((await batchOf(account, token)).State).toBe('build');
    expectProblem(await fileOf(account, token), 409, 'batch_not_submitted');
    await advanceTo(account, plusDays(today, 1));
    // 100.00 + 49.99 + 1250.00 = 1399.99
    expect(await batchOf(account, token)).toMatchObject({
      State: 'submitted',
      BuildError: null,
      NumberOfPayments: 3,
      PaymentsTotal: '1399.99',
    });

    // Nobody downloaded the file, so the bank has not got it: still submitted on its action date.
    await advanceTo(account, actionDate);
    expect((await batchOf(account, token)).State).toBe('submitted');
    for (const line of [rejected, accepted, silent]) {
      expect((await paymentOf(account, line.paymentId)).Status).toBe('Pending');
    }

    const first = await download(account, token);
    expect(first.headers.get('content-type')).toBe('application/xml; charset=utf-8');
    const fileName = fileNameOf(first);
    validatePain008(first.text);
    const doc = readPain008(first.text);
    // The file is named after its message id, which the bank's pain.002 will answer.
    const messageId = doc.GrpHdr.MsgId as string;
    expect(fileName).toBe(`${messageId}.xml`);
    expect(doc.GrpHdr).toMatchObject({
      NbOfTxs: '3',
      CtrlSum: '1399.99',
      InitgPty: { Nm: SEPA_CREDITOR.creditorName },
    });
    expect(doc.PmtInf).toHaveLength(1);
    const block = doc.PmtInf[0];
    expect(block).toMatchObject({
      PmtMtd: 'DD',
      NbOfTxs: '3',
      CtrlSum: '1399.99',
      ReqdColltnDt: actionDate,
      Cdtr: { Nm: SEPA_CREDITOR.creditorName },
      CdtrAcct: { Id: { IBAN: SEPA_CREDITOR.creditorIban } },
      CdtrAgt: { FinInstnId: { BIC: SEPA_CREDITOR.creditorBic } },
    });
    expect(block.CdtrSchmeId.Id.PrvtId.Othr.Id).toBe(SEPA_CREDITOR.creditorSchemeId);
    expect(
      block.DrctDbtTxInf.map((tx: any) => ({
        endToEndId: tx.PmtId.EndToEndId,
        amount: tx.InstdAmt['#text'],
        currency: tx.InstdAmt['@_Ccy'],
        iban: tx.DbtrAcct.Id.IBAN,
        bic: tx.DbtrAgt.FinInstnId.BIC,
        name: tx.Dbtr.Nm,
      })),
    ).toEqual([
      {
        endToEndId: String(rejected.paymentId),
        amount: '100.00',
        currency: 'EUR',
        iban: 'NL91ABNA0417164300',
        bic: 'ABNANL2A',
        name: 'Jan de Vries',
      },
      {
        endToEndId: String(accepted.paymentId),
        amount: '49.99',
        currency: 'EUR',
        iban: 'AT611904300234573201',
        bic: 'BKAUATWW',
        name: 'Anna Gruber',
      },
      {
        endToEndId: String(silent.paymentId),
        amount: '1250.00',
        currency: 'EUR',
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
        // The SEPA character set: ü becomes u.
        name: 'Max Muller',
      },
    ]);
    // The same batch makes the same file, byte for byte, however often it is downloaded.
    const second = await download(account, token);
    expect(second.text).toBe(first.text);
    expect(fileNameOf(second)).toBe(fileName);

    // Downloaded: the next run sees the action date passed and the bank processing it.
    const reportDay = plusDays(actionDate, 1);
    await advanceTo(account, reportDay);
    expect((await batchOf(account, token)).State).toBe('processing');

    // A report on another message is not about this batch's file.
    const otherMessage = await uploadReturns(
      account,
      token,
      pain002('MSG-SOMEONE-ELSE', [
        { endToEndId: String(rejected.paymentId), status: 'RJCT', reasonCode: 'AM04' },
      ]),
    );
    expect(otherMessage.status, otherMessage.text).toBe(422);
    expect(otherMessage.body.fields).toEqual([
      { field: 'document', message: expect.stringContaining(messageId) },
    ]);
    // An entry that is no line of the batch: the whole report is refused, nothing recorded.
    const stranger = await uploadReturns(
      account,
      token,
      pain002(messageId, [
        { endToEndId: String(rejected.paymentId), status: 'RJCT', reasonCode: 'AM04' },
        { endToEndId: '999999', status: 'RJCT', reasonCode: 'AM04' },
      ]),
    );
    expect(stranger.status, stranger.text).toBe(422);
    expect(stranger.body.fields).toEqual([{ field: 'document', message: expect.stringContaining('999999') }]);
    expect((await paymentOf(account, rejected.paymentId)).Status).toBe('Pending');
    expect((await invoiceOf(account, rejected.invoiceId)).Balance).toBe(0);

    const report = await uploadReturns(
      account,
      token,
      pain002(messageId, [
        { endToEndId: String(rejected.paymentId), status: 'RJCT', reasonCode: 'AM04' },
        { endToEndId: String(accepted.paymentId), status: 'ACSC' },
      ]),
    );
    expect(report.status, report.text).toBe(200);
    expect(report.body).toEqual({ Returned: 1, Settled: 1, Unchanged: 0 });

    // AM04, insufficient funds: the payment failed, the invoice owes the 100.00 again and, the first of SEPA's
    // two presentations used, is presented again 14 days after the reject.
    expect(await paymentOf(account, rejected.paymentId)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'insufficient_funds',
    });
    const reopened = await invoiceOf(account, rejected.invoiceId);
    expect(reopened).toMatchObject({ Balance: 100, TotalPendingPaid: 0, TotalActualPaid: 0, NumTries: 1 });
    expect(reopened.Status).not.toBe('Paid');
    expect(reopened.NextTryDate?.slice(0, 10)).toBe(plusDays(reportDay, 14));
    // ACSC: settled on the action date.
    const settled = await paymentOf(account, accepted.paymentId);
    expect(settled.Status).toBe('Allocated');
    expect(settled.Date.slice(0, 10)).toBe(actionDate);
    expect(await invoiceOf(account, accepted.invoiceId)).toMatchObject({
      Status: 'Paid',
      TotalActualPaid: 49.99,
      Balance: 0,
    });
    // The report said nothing of the third line: pending until SEPA's five-business-day window closes.
    expect((await paymentOf(account, silent.paymentId)).Status).toBe('Pending');
    expect((await batchOf(account, token)).State).toBe('processing');

    await advanceTo(account, plusDays(returnWindowEnd('sepa', actionDate), 1));
    expect((await batchOf(account, token)).State).toBe('processed');
    expect(await paymentOf(account, silent.paymentId)).toMatchObject({ Status: 'Allocated' });
    expect(await invoiceOf(account, silent.invoiceId)).toMatchObject({
      Status: 'Paid',
      TotalActualPaid: 1250,
      Balance: 0,
    });
    expect((await paymentOf(account, rejected.paymentId)).Status).toBe('Failed');
    // The same report again changes nothing: one line failed, the other settled already.
    const repeated = await uploadReturns(
      account,
      token,
      pain002(messageId, [
        { endToEndId: String(rejected.paymentId), status: 'RJCT', reasonCode: 'AM04' },
        { endToEndId: String(accepted.paymentId), status: 'ACSC' },
      ]),
    );
    expect(repeated.body).toEqual({ Returned: 0, Settled: 0, Unchanged: 2 });
    // A NACHA return file is no answer to a SEPA batch.
    const wrongRail = await uploadReturns(account, token, `101${' '.repeat(91)}\n`);
    expect(wrongRail.status, wrongRail.text).toBe(422);
    expect(wrongRail.body.fields).toEqual([
      { field: 'document', message: expect.stringContaining('not an ach batch') },
    ]);
    const batchEvents = (await eventsOf(account, 'batch', token)).map((e) => e.type);
    expect(batchEvents.at(-1)).toBe('batch.processed');
    expect(batchEvents).not.toContain('batch.build_failed');
  });

  it('reverses a settled line by hand after the batch is processed, and refuses a result without reason or twice', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account, today } = setup;
    // No creditorBic: an IBAN-only collection.
    const { creditorBic: _, ...withoutBic } = SEPA_CREDITOR;
    const gateway = await addBankFileGateway(t, setup, withoutBic);
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    const customer = await bankCustomer(
      setup,
      'EUR',
      sepaAccount('Anna Gruber', 'AT611904300234573201', 'BKAUATWW'),
      { gatewayId: gateway.gatewayId },
    );
    const invoiceId = await bankInvoice(setup, gateway.gatewayId, customer, 80);
    const paymentId = await addLine(setup, token, customer, invoiceId, 80);
    const actionDate = earliestActionDate('sepa', today);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
    await advanceTo(account, plusDays(today, 1));
    const file = await download(account, token);
    validatePain008(file.text);
    expect(readPain008(file.text).PmtInf[0].CdtrAgt.FinInstnId).toEqual({ Othr: { Id: 'NOTPROVIDED' } });

    await advanceTo(account, plusDays(returnWindowEnd('sepa', actionDate), 1));
    expect((await batchOf(account, token)).State).toBe('processed');
    expect(await invoiceOf(account, invoiceId)).toMatchObject({ Status: 'Paid', Balance: 0 });

    const result = `/v1/batches/payments/${paymentId}/result`;
    expectProblem(
      await account.request('PUT', result, { body: { Status: 'paid' } }),
      409,
      'batch_line_final',
    );
    const noReason = await account.request('PUT', result, { body: { Status: 'unpaid' } });
    expect(noReason.status, noReason.text).toBe(422);
    expect(noReason.body.fields.map((f: { field: string }) => f.field)).toEqual(['ReasonCode']);
    expect((await paymentOf(account, paymentId)).Status).toBe('Allocated');

    // A refund the debtor claimed (MD06) after the window: the payment fails, the invoice owes the 80.00 again.
    await ok(account, 'PUT', result, { Status: 'unpaid', ReasonCode: 'MD06' });
    expect(await paymentOf(account, paymentId)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'disputed',
    });
    const invoice = await invoiceOf(account, invoiceId);
    // MD06 may not be presented again: no next try.
    expect(invoice).toMatchObject({
      Balance: 80,
      TotalActualPaid: 0,
      TotalPendingPaid: 0,
      NextTryDate: null,
    });
    expect(invoice.Status).not.toBe('Paid');
    // Failed is final: neither paid nor unpaid again.
    expectProblem(
      await account.request('PUT', result, { body: { Status: 'paid' } }),
      409,
      'batch_line_final',
    );
    expectProblem(
      await account.request('PUT', result, { body: { Status: 'unpaid', ReasonCode: 'AM04' } }),
      409,
      'batch_line_final',
    );
  });
});

/** A one-line SEPA batch of a bankfile gateway, submitted today and built by the next day's run. */
async function builtSepaBatch() {
  const setup = await debitAccount(t, 'EUR');
  const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
  const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
  const details = sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A');
  const customer = await bankCustomer(setup, 'EUR', details, { gatewayId: gateway.gatewayId });
  const invoiceId = await bankInvoice(setup, gateway.gatewayId, customer, 100);
  const paymentId = await addLine(setup, token, customer, invoiceId, 100);
  const actionDate = earliestActionDate('sepa', setup.today);
  await ok(setup.account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
  await advanceTo(setup.account, plusDays(setup.today, 1));
  expect((await batchOf(setup.account, token)).State).toBe('submitted');
  return { setup, gateway, token, customer, paymentId, actionDate };
}

describe('the file of a built SEPA batch', () => {
  it('is named after its message id: the batch and the whole second it was submitted', async () => {
    const { setup, token } = await builtSepaBatch();
    const file = await download(setup.account, token);
    const messageId = readPain008(file.text).GrpHdr.MsgId;
    expect(fileNameOf(file)).toBe(`${messageId}.xml`);
    // B<batch id>S<seconds since the epoch>: an identifier the bank echoes back, free of fractions of a second.
    expect(messageId).toMatch(/^B\d+S\d+$/);
  });

  it('stays the file it was built as when a debtor edits the bank account afterwards', async () => {
    const { setup, token, customer } = await builtSepaBatch();
    const first = await download(setup.account, token);
    expect(readPain008(first.text).PmtInf[0].DrctDbtTxInf[0].DbtrAcct.Id.IBAN).toBe('NL91ABNA0417164300');
    await ok(setup.account, 'PUT', `/v1/paymentmethods/bankaccount/${customer.paymentMethodId}`, {
      customerID: customer.customerId,
      isPrimary: true,
      BankAccount: sepaAccount('Jan de Vries', 'BE68539007547034', 'GKCCBEBB'),
    });
    // The bank may have the file already: a download must give the same bytes, never a new (and unvalidated)
    // IBAN under the same message id.
    const second = await download(setup.account, token);
    expect(second.text).toBe(first.text);
  });
});

describe('a pain.002 for a batch that is only submitted', () => {
  it('may fail its lines but not settle them: 409 batch_not_processing, as for a line’s result by hand', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    const [settling, rejected] = (await debtorLines(setup, gateway.gatewayId, token, 'EUR', [
      { details: sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'), amount: 100 },
      { details: sepaAccount('Anna Gruber', 'AT611904300234573201', 'BKAUATWW'), amount: 40 },
    ])) as [DebtorLine, DebtorLine];
    const actionDate = earliestActionDate('sepa', today);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
    await advanceTo(account, plusDays(today, 1));
    const messageId = readPain008((await download(account, token)).text).GrpHdr.MsgId as string;
    // Before its action date the bank has not collected anything, and the batch may still be cancelled.
    expect((await batchOf(account, token)).State).toBe('submitted');

    const byHand = await account.request('PUT', `/v1/batches/payments/${settling.paymentId}/result`, {
      body: { Status: 'paid' },
    });
    expectProblem(byHand, 409, 'batch_not_processing');
    const mixed = pain002(messageId, [
      { endToEndId: String(settling.paymentId), status: 'ACSC' },
      { endToEndId: String(rejected.paymentId), status: 'RJCT', reasonCode: 'AC04' },
    ]);
    const early = await uploadReturns(account, token, mixed);
    expectProblem(early, 409, 'batch_not_processing');
    expect(early.body.detail).toContain(String(settling.paymentId));
    // Nothing recorded, the reject included.
    expect((await paymentOf(account, settling.paymentId)).Status).toBe('Pending');
    expect((await paymentOf(account, rejected.paymentId)).Status).toBe('Pending');

    // A reject alone is taken: a bank refuses a debit before it collects it.
    const reject = pain002(messageId, [
      { endToEndId: String(rejected.paymentId), status: 'RJCT', reasonCode: 'AC04' },
    ]);
    expect((await uploadReturns(account, token, reject)).body).toEqual({
      Returned: 1,
      Settled: 0,
      Unchanged: 0,
    });
    expect((await paymentOf(account, rejected.paymentId)).Status).toBe('Failed');

    // Once the bank processes the batch, the same report settles the line.
    await advanceTo(account, actionDate);
    expect((await batchOf(account, token)).State).toBe('processing');
    expect((await uploadReturns(account, token, mixed)).body).toEqual({
      Returned: 0,
      Settled: 1,
      Unchanged: 1,
    });
    expect((await paymentOf(account, settling.paymentId)).Status).toBe('Allocated');
  });
});

describe('an uploaded pain.002 the parser cannot read', () => {
  it('is a 422 naming document, whether its elements reach the object prototype or nest too deep', async () => {
    const { setup, token, paymentId } = await builtSepaBatch();
    const messageId = readPain008((await download(setup.account, token)).text).GrpHdr.MsgId as string;
    const report = pain002(messageId, [
      { endToEndId: String(paymentId), status: 'RJCT', reasonCode: 'AM04' },
    ]);
    const nested = (depth: number) => `${'<Nst>'.repeat(depth)}${'</Nst>'.repeat(depth)}`;
    const hostile = [
      [
        '__proto__',
        report.replace('<GrpHdr>', '<GrpHdr><__proto__>x</__proto__>'),
        /element named __proto__/,
      ],
      ['constructor', report.replace('<GrpHdr>', '<GrpHdr><constructor/>'), /element named constructor/],
      ['deep nesting', report.replace('<GrpHdr>', `<GrpHdr>${nested(40)}`), /nests elements more than/],
      ['deeper nesting', report.replace('<GrpHdr>', `<GrpHdr>${nested(500)}`), /nests elements more than/],
    ] as const;
    for (const [what, document, message] of hostile) {
      const res = await uploadReturns(setup.account, token, document);
      expect(res.status, `${what}: ${res.text}`).toBe(422);
      expect(res.body.code, what).toBe('bank_file_unreadable');
      expect(res.body.fields, what).toEqual([{ field: 'document', message: expect.stringMatching(message) }]);
    }
    expect((await paymentOf(setup.account, paymentId)).Status).toBe('Pending');
    // The same report without them is read.
    const read = await uploadReturns(setup.account, token, report);
    expect(read.status, read.text).toBe(200);
    expect(read.body).toEqual({ Returned: 1, Settled: 0, Unchanged: 0 });
  });
});

describe('the lines of a pain.008', () => {
  it('carry the mandate set on the bank account and the invoice numbers they pay', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    const signed = plusDays(today, -40);
    const withMandate = await bankCustomer(
      setup,
      'EUR',
      {
        ...sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'),
        MandateReference: 'ACME-2026/0042',
        MandateSignatureDate: signed,
      },
      { gatewayId: gateway.gatewayId },
    );
    const without = await bankCustomer(
      setup,
      'EUR',
      sepaAccount('Anna Gruber', 'AT611904300234573201', 'BKAUATWW'),
      {
        gatewayId: gateway.gatewayId,
      },
    );
    const one = await bankInvoice(setup, gateway.gatewayId, withMandate, 30);
    const paysOne = await addLine(setup, token, withMandate, one, 30);
    const [first, second] = [
      await bankInvoice(setup, gateway.gatewayId, without, 10),
      await bankInvoice(setup, gateway.gatewayId, without, 15),
    ];
    const paysTwo = (
      await ok(account, 'POST', '/v1/batches/payments', {
        BatchToken: token,
        customerID: without.customerId,
        Amount: 25,
        paymentMethodID: without.paymentMethodId,
        PaymentApplied: [
          { amount: 10, invoiceID: first },
          { amount: 15, invoiceID: second },
        ],
      })
    ).paymentID;
    const numberOf = async (id: number) => (await invoiceOf(account, id)).invoiceNum;
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: token,
      ActionDate: earliestActionDate('sepa', today),
    });
    await advanceTo(account, plusDays(today, 1));

    const file = await download(account, token);
    validatePain008(file.text);
    const transactions = readPain008(file.text).PmtInf[0].DrctDbtTxInf.map((tx: any) => ({
      endToEndId: tx.PmtId.EndToEndId,
      mandate: tx.DrctDbtTx.MndtRltdInf,
      remittance: tx.RmtInf.Ustrd,
    }));
    expect(transactions).toEqual([
      {
        endToEndId: String(paysOne),
        mandate: { MndtId: 'ACME-2026/0042', DtOfSgntr: signed },
        remittance: `Invoice ${await numberOf(one)}`,
      },
      {
        endToEndId: String(paysTwo),
        // No mandate set: until eMandates exist, PM<its id>, signed the day the account was added.
        mandate: { MndtId: `PM${without.paymentMethodId}`, DtOfSgntr: today },
        remittance: `Invoices ${await numberOf(first)}, ${await numberOf(second)}`,
      },
    ]);
  });
});

describe('an ACH batch of a bankfile gateway', () => {
  it('is built into a NACHA file that node-nacha reads back, and a returned R03 fails its line and its bank account', async () => {
    const setup = await debitAccount(t, 'USD');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, ACH_ORIGINATOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'USD');
    const [paid, returned] = (await debtorLines(setup, gateway.gatewayId, token, 'USD', [
      { details: achAccount('Grace Hopper', '000123456789'), amount: 19.99 },
      { details: { ...achAccount('Alan Turing', '987654321'), AccountType: 'Savings' }, amount: 250 },
    ])) as [DebtorLine, DebtorLine];

    const actionDate = earliestActionDate('ach', today);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
    await advanceTo(account, plusDays(today, 1));
    expect(await batchOf(account, token)).toMatchObject({ State: 'submitted', BuildError: null });

    // Another account cannot see the batch, nor its file.
    expect((await t.request('GET', `/v1/batches/${token}/file`)).status).toBe(404);
    expect((await uploadReturns(t, token, 'x')).status).toBe(404);

    const first = await download(account, token);
    expect(first.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(fileNameOf(first)).toMatch(/\.ach$/);
    expect((await download(account, token)).text).toBe(first.text);
    const parsed = readNacha(first.text);
    expect(parsed.file).toMatchObject({
      destination: ' 021000021',
      origin: '1234567890',
      destinationName: 'JPMORGAN CHASE',
      originName: 'ACME BILLING INC',
    });
    expect(parsed.batches).toHaveLength(1);
    const [batch] = parsed.batches;
    expect(batch).toMatchObject({
      companyName: 'ACME BILLING',
      companyId: '1234567890',
      entryClassCode: 'PPD',
      description: 'SUBSCRIPT',
      // YYMMDD
      effectiveDate: actionDate.slice(2).replaceAll('-', ''),
      originatingDFIIdentification: '02100002',
    });
    expect(
      batch!.entries.map((e) => ({
        code: e.transactionCode,
        routing: `${String(e.receivingDFIIdentification).padStart(8, '0')}${e.checkDigit}`,
        account: e.dfiAccount.trim(),
        amount: e.amount,
        id: e.identificationNumber.trim(),
        name: e.receivingCompanyName.trim(),
      })),
    ).toEqual([
      {
        code: '27',
        routing: '110000000',
        account: '000123456789',
        amount: 1999,
        id: String(paid.paymentId),
        name: 'GRACE HOPPER',
      },
      {
        // A debit to a savings account.
        code: '37',
        routing: '110000000',
        account: '987654321',
        amount: 25000,
        id: String(returned.paymentId),
        name: 'ALAN TURING',
      },
    ]);
    // 19.99 + 250.00 = 269.99
    expect(batch!.footer).toMatchObject({ entryAndAddendaCount: 2, totalDebit: 26999, totalCredit: 0 });

    // R03, no account: the payment fails, the invoice owes again with no retry, the bank account is invalid.
    const report = await uploadReturns(
      account,
      token,
      nachaReturnFile(first.text, [
        { paymentId: returned.paymentId, code: 'R03', info: 'NO ACCOUNT/UNABLE TO LOCATE' },
      ]),
    );
    expect(report.status, report.text).toBe(200);
    expect(report.body).toEqual({ Returned: 1, Settled: 0, Unchanged: 0 });
    expect(await paymentOf(account, returned.paymentId)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'invalid_account',
    });
    expect(await invoiceOf(account, returned.invoiceId)).toMatchObject({ Balance: 250, NextTryDate: null });
    expect(
      (await ok(account, 'GET', `/v1/paymentmethods/${returned.customer.paymentMethodId}`)).isValid,
    ).toBe(false);
    expect((await ok(account, 'GET', `/v1/paymentmethods/${paid.customer.paymentMethodId}`)).isValid).toBe(
      true,
    );
    expect((await paymentOf(account, paid.paymentId)).Status).toBe('Pending');

    // The same file again changes nothing: its line has failed already.
    const again = await uploadReturns(
      account,
      token,
      nachaReturnFile(first.text, [{ paymentId: returned.paymentId, code: 'R03' }]),
    );
    expect(again.body).toEqual({ Returned: 0, Settled: 0, Unchanged: 1 });

    // ACH's two-banking-day window passes: the other line is paid, the batch processed.
    await advanceTo(account, plusDays(returnWindowEnd('ach', actionDate), 1));
    expect((await batchOf(account, token)).State).toBe('processed');
    expect((await paymentOf(account, paid.paymentId)).Status).toBe('Allocated');
    expect((await invoiceOf(account, paid.invoiceId)).Status).toBe('Paid');
  });
});

describe('the build of a bankfile batch', () => {
  it('sends the batch back to open with BuildError naming the settings a gateway lacks', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, { creditorName: 'Acme Subscriptions GmbH' });
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    // Before any build the batch has no file.
    expectProblem(await fileOf(account, token), 409, 'batch_not_submitted');
    const customer = await bankCustomer(
      setup,
      'EUR',
      sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'),
      { gatewayId: gateway.gatewayId },
    );
    const invoiceId = await bankInvoice(setup, gateway.gatewayId, customer, 100);
    await addLine(setup, token, customer, invoiceId, 100);
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: token,
      ActionDate: earliestActionDate('sepa', today),
    });
    await advanceTo(account, plusDays(today, 1));

    const batch = await batchOf(account, token);
    expect(batch.State).toBe('open');
    expect(batch.BuildError).toBe(
      `gateway ${gateway.gatewayId} settings: creditorIban, creditorSchemeId required for sepa files`,
    );
    const events = (await eventsOf(account, 'batch', token)).map((e) => e.type);
    expect(events).toContain('batch.build_failed');
    expect(events.at(-1)).toBe('batch.build_failed');
    expectProblem(await fileOf(account, token), 409, 'batch_not_submitted');
    expectProblem(
      await uploadReturns(account, token, pain002('ANY', [{ endToEndId: '1', status: 'ACSC' }])),
      409,
      'batch_not_submitted',
    );
  });

  it('names the payment whose bank account was never validated', async () => {
    const setup = await debitAccount(t, 'USD');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, ACH_ORIGINATOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'USD');
    const valid = await bankCustomer(setup, 'USD', achAccount('Grace Hopper', '000123456789'), {
      gatewayId: gateway.gatewayId,
    });
    const unchecked = await bankCustomer(setup, 'USD', achAccount('Alan Turing', '987654321'), {
      gatewayId: gateway.gatewayId,
      validated: false,
    });
    await addLine(setup, token, valid, await bankInvoice(setup, gateway.gatewayId, valid, 10), 10);
    const uncheckedPayment = await addLine(
      setup,
      token,
      unchecked,
      await bankInvoice(setup, gateway.gatewayId, unchecked, 20),
      20,
    );
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: token,
      ActionDate: earliestActionDate('ach', today),
    });
    await advanceTo(account, plusDays(today, 1));

    expect(await batchOf(account, token)).toMatchObject({
      State: 'open',
      BuildError: `payment ${uncheckedPayment}: bank account ${unchecked.paymentMethodId} is not valid (POST /v1/ValidateBankAccount it first)`,
    });
    expect((await eventsOf(account, 'batch', token)).map((e) => e.type)).toContain('batch.build_failed');
  });

  it('refuses a debit-order (ZAR) batch: a bank file is made for sepa and ach only', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'ZAR');
    const customer = await bankCustomer(setup, 'ZAR', bankAccount('debit_order'), {
      gatewayId: gateway.gatewayId,
    });
    await addLine(setup, token, customer, await bankInvoice(setup, gateway.gatewayId, customer, 100), 100);
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: token,
      ActionDate: earliestActionDate('debit_order', today),
    });
    await advanceTo(account, plusDays(today, 1));

    const batch = await batchOf(account, token);
    expect(batch.State).toBe('open');
    expect(batch.BuildError).toBe(
      'a bank file is made for sepa and ach batches; SA debit orders go through a provider',
    );
    expect((await eventsOf(account, 'batch', token)).map((e) => e.type)).toContain('batch.build_failed');
  });
});

describe('a batch of the test gateway', () => {
  it('has no bank file and takes no uploaded returns: 409 batch_not_bank_file', async () => {
    const setup = await debitAccount(t, 'ZAR');
    const { account, today } = setup;
    const customer = await debitCustomer(setup, 'debit_order');
    const invoiceId = await debitInvoice(setup, customer, { dueIn: 30 });
    const token = await openBatch(setup, setup.gatewayToken, 'ZAR');
    expectProblem(await fileOf(account, token), 409, 'batch_not_bank_file');
    const paymentId = await addLine(setup, token, customer, invoiceId, 100);
    await ok(account, 'PUT', '/v1/batches/submit', {
      BatchToken: token,
      ActionDate: earliestActionDate('debit_order', today),
    });
    await advanceTo(account, plusDays(today, 1));
    expect((await batchOf(account, token)).State).toBe('submitted');

    expectProblem(await fileOf(account, token), 409, 'batch_not_bank_file');
    expectProblem(
      await uploadReturns(
        account,
        token,
        pain002('ANY', [{ endToEndId: String(paymentId), status: 'RJCT', reasonCode: 'AM04' }]),
      ),
      409,
      'batch_not_bank_file',
    );
    expect((await paymentOf(account, paymentId)).Status).toBe('Pending');
  });
});

describe('a bank file nobody took to the bank', () => {
  it('is not handed out after its action date; the batch can still be cancelled, its lines failed', async () => {
    const setup = await debitAccount(t, 'EUR');
    const { account, today } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    const [line] = await debtorLines(setup, gateway.gatewayId, token, 'EUR', [
      { details: sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'), amount: 100 },
    ]);
    const actionDate = earliestActionDate('sepa', today);
    await ok(account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
    await advanceTo(account, plusDays(actionDate, 1));
    expect((await batchOf(account, token)).State).toBe('submitted');
    expectProblem(await fileOf(account, token), 409, 'bank_file_too_late');
    await ok(account, 'PUT', '/v1/batches/cancel', { BatchToken: token });
    expect((await batchOf(account, token)).State).toBe('cancelled');
    // A cancelled batch's file is never handed out, whatever its date.
    expectProblem(await fileOf(account, token), 409, 'batch_not_submitted');
    expect(await paymentOf(account, line!.paymentId)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'batch_cancelled',
    });
  });
});
