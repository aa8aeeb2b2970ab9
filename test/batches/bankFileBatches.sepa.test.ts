import { describe, expect, it } from 'vitest';
import { earliestActionDate, onBusinessDay, returnWindowEnd } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  SEPA_CREDITOR,
  addBankFileGateway,
  addLine,
  bankCustomer,
  bankInvoice,
  batchOf,
  debtorLines,
  download,
  expectProblem,
  fileNameOf,
  fileOf,
  invoiceOf,
  openBatch,
  pain002,
  paymentOf,
  readPain008,
  sepaAccount,
  submitAndBuild,
  uploadReturns,
  validatePain008,
} from './bankFileFixtures.ts';
import type { DebtorLine } from './bankFileFixtures.ts';
import { advanceTo, debitAccount, plusDays } from './fixtures.ts';

// Debits collected by SEPA bank files (docs/gateways.md, "The bankfile gateway"): a batch of the bankfile gateway
// is built into a pain.008, which the business downloads and takes to its bank; the bank's pain.002 comes back
// through the API and fails or settles the lines; what nobody returned settles once the rail's window passes.

const t = useTestService();

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
    expect(report.body).toEqual({ Returned: 1, Settled: 1, Unchanged: 0, Mismatched: [] });

    // AM04, insufficient funds: the payment failed, the invoice owes the 100.00 again and, the first of SEPA's
    // two presentations used, is presented again 14 days after the reject, on a business day.
    expect(await paymentOf(account, rejected.paymentId)).toMatchObject({
      Status: 'Failed',
      FailureReason: 'insufficient_funds',
    });
    const reopened = await invoiceOf(account, rejected.invoiceId);
    expect(reopened).toMatchObject({ Balance: 100, TotalPendingPaid: 0, TotalActualPaid: 0, NumTries: 1 });
    expect(reopened.Status).not.toBe('Paid');
    expect(reopened.NextTryDate?.slice(0, 10)).toBe(onBusinessDay(plusDays(reportDay, 14), 'sepa'));
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
    expect(repeated.body).toEqual({ Returned: 0, Settled: 0, Unchanged: 2, Mismatched: [] });
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
    const { account } = setup;
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
    const actionDate = await submitAndBuild(setup, token, 'sepa');
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
    await submitAndBuild(setup, token, 'sepa');

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
