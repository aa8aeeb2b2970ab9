import { describe, expect, it } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  SEPA_CREDITOR,
  addBankFileGateway,
  batchOf,
  builtSepaBatch,
  debtorLines,
  download,
  expectProblem,
  fileNameOf,
  fileOf,
  openBatch,
  pain002,
  paymentOf,
  readPain008,
  sepaAccount,
  submitAndBuild,
  uploadReturns,
} from './bankFileFixtures.ts';
import type { DebtorLine } from './bankFileFixtures.ts';
import { advanceTo, debitAccount, plusDays } from './fixtures.ts';

// The pain.008 of a built SEPA batch (docs/gateways.md, "The bankfile gateway"): its name, its bytes once built,
// the pain.002 the bank may send before the action date or that cannot be read, and a file nobody took to the bank.

const t = useTestService();

describe('the file of a built SEPA batch', () => {
  it('is named after its message id: the batch and the whole second it was submitted', async () => {
    const { setup, token } = await builtSepaBatch(t);
    const file = await download(setup.account, token);
    const messageId = readPain008(file.text).GrpHdr.MsgId;
    expect(fileNameOf(file)).toBe(`${messageId}.xml`);
    // B<batch id>S<seconds since the epoch>: an identifier the bank echoes back, free of fractions of a second.
    expect(messageId).toMatch(/^B\d+S\d+$/);
  });

  it('stays the file it was built as when a debtor edits the bank account afterwards', async () => {
    const { setup, token, customer } = await builtSepaBatch(t);
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
    const { account } = setup;
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
    const [settling, rejected] = (await debtorLines(setup, gateway.gatewayId, token, 'EUR', [
      { details: sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A'), amount: 100 },
      { details: sepaAccount('Anna Gruber', 'AT611904300234573201', 'BKAUATWW'), amount: 40 },
    ])) as [DebtorLine, DebtorLine];
    const actionDate = await submitAndBuild(setup, token, 'sepa');
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
      Mismatched: [],
    });
    expect((await paymentOf(account, rejected.paymentId)).Status).toBe('Failed');

    // Once the bank processes the batch, the same report settles the line.
    await advanceTo(account, actionDate);
    expect((await batchOf(account, token)).State).toBe('processing');
    expect((await uploadReturns(account, token, mixed)).body).toEqual({
      Returned: 0,
      Settled: 1,
      Unchanged: 1,
      Mismatched: [],
    });
    expect((await paymentOf(account, settling.paymentId)).Status).toBe('Allocated');
  });
});

describe('an uploaded pain.002 the parser cannot read', () => {
  it('is a 422 naming document, whether its elements reach the object prototype or nest too deep', async () => {
    const { setup, token, paymentId } = await builtSepaBatch(t);
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
    expect(read.body).toEqual({ Returned: 1, Settled: 0, Unchanged: 0, Mismatched: [] });
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
