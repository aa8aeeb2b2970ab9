import { describe, expect, it } from 'vitest';
import { returnWindowEnd } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  ACH_ORIGINATOR,
  achAccount,
  addBankFileGateway,
  batchOf,
  debtorLines,
  download,
  fileNameOf,
  invoiceOf,
  nachaReturnFile,
  openBatch,
  paymentOf,
  readNacha,
  submitAndBuild,
  uploadReturns,
} from './bankFileFixtures.ts';
import type { DebtorLine } from './bankFileFixtures.ts';
import { advanceTo, debitAccount, plusDays } from './fixtures.ts';

// Debits collected by NACHA bank files (docs/gateways.md, "The bankfile gateway"): an ACH batch of the bankfile
// gateway built into a NACHA file, and the ODFI's return file coming back through the API.

const t = useTestService();

describe('an ACH batch of a bankfile gateway', () => {
  it('is built into a NACHA file that node-nacha reads back, and a returned R03 fails its line and its bank account', async () => {
    const setup = await debitAccount(t, 'USD');
    const { account } = setup;
    const gateway = await addBankFileGateway(t, setup, ACH_ORIGINATOR);
    const token = await openBatch(setup, gateway.gatewayToken, 'USD');
    const [paid, returned] = (await debtorLines(setup, gateway.gatewayId, token, 'USD', [
      { details: achAccount('Grace Hopper', '000123456789'), amount: 19.99 },
      { details: { ...achAccount('Alan Turing', '987654321'), AccountType: 'Savings' }, amount: 250 },
    ])) as [DebtorLine, DebtorLine];

    const actionDate = await submitAndBuild(setup, token, 'ach');
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
    expect(report.body).toEqual({ Returned: 1, Settled: 0, Unchanged: 0, Mismatched: [] });
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
    expect(again.body).toEqual({ Returned: 0, Settled: 0, Unchanged: 1, Mismatched: [] });

    // ACH's two-banking-day window passes: the other line is paid, the batch processed.
    await advanceTo(account, plusDays(returnWindowEnd('ach', actionDate), 1));
    expect((await batchOf(account, token)).State).toBe('processed');
    expect((await paymentOf(account, paid.paymentId)).Status).toBe('Allocated');
    expect((await invoiceOf(account, paid.invoiceId)).Status).toBe('Paid');
  });
});
