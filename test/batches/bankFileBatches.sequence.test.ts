import { describe, expect, it } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import { ok } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';
import {
  SEPA_CREDITOR,
  addBankFileGateway,
  addLine,
  bankCustomer,
  bankInvoice,
  batchOf,
  download,
  openBatch,
  pain002,
  paymentOf,
  readPain008,
  sepaAccount,
  uploadReturns,
  validatePain008,
} from './bankFileFixtures.ts';
import type { BankCustomer, GatewayRef } from './bankFileFixtures.ts';
import { advanceTo, debitAccount, plusDays } from './fixtures.ts';
import type { DebitSetup } from './fixtures.ts';

// docs/bank-files.md, "SEPA direct debit: `buildPain008`": the first collection under a mandate reference is FRST,
// the following ones RCUR; a first collection the bank rejected or returned leaves the next one FRST again.

const t = useTestService();

/** Each line's sequence type in the batch's pain.008 (validated against the XSD), by end-to-end id. */
async function sequenceTypes(setup: DebitSetup, token: string): Promise<Record<string, string>> {
  const file = await download(setup.account, token);
  validatePain008(file.text);
  const types: Record<string, string> = {};
  for (const block of readPain008(file.text).PmtInf) {
    for (const tx of block.DrctDbtTxInf) types[tx.PmtId.EndToEndId] = block.PmtTpInf.SeqTp;
  }
  return types;
}

/** A batch of one line per customer submitted on `day` and built by the next day's run; its token and payments. */
async function collect(
  setup: DebitSetup,
  gateway: GatewayRef,
  day: string,
  customers: readonly BankCustomer[],
): Promise<{ token: string; payments: number[] }> {
  const token = await openBatch({ ...setup, today: day }, gateway.gatewayToken, 'EUR');
  const payments: number[] = [];
  for (const customer of customers) {
    const invoiceId = await bankInvoice({ ...setup, today: day }, gateway.gatewayId, customer, 25);
    payments.push(await addLine(setup, token, customer, invoiceId, 25));
  }
  await ok(setup.account, 'PUT', '/v1/batches/submit', {
    BatchToken: token,
    ActionDate: earliestActionDate('sepa', day),
  });
  await advanceTo(setup.account, plusDays(day, 1));
  expect((await batchOf(setup.account, token)).State).toBe('submitted');
  return { token, payments };
}

const withMandate = (setup: DebitSetup, gateway: GatewayRef, reference: string, iban: string, bic: string) =>
  bankCustomer(
    setup,
    'EUR',
    {
      ...sepaAccount('Jan de Vries', iban, bic),
      MandateReference: reference,
      MandateSignatureDate: plusDays(setup.today, -10),
    },
    { gatewayId: gateway.gatewayId },
  );

describe('the sequence type of a SEPA line', () => {
  it('is FRST for a mandate’s first collection and RCUR after, per mandate reference', async () => {
    const setup = await debitAccount(t, 'EUR');
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const jan = await withMandate(setup, gateway, 'ACME-SEQ-1', 'NL91ABNA0417164300', 'ABNANL2A');
    const first = await collect(setup, gateway, setup.today, [jan]);
    expect(await sequenceTypes(setup, first.token)).toEqual({ [first.payments[0]!]: 'FRST' });

    // The same mandate again, and a new one (another account of the same debtor, its own reference), in one file.
    const anna = await withMandate(setup, gateway, 'ACME-SEQ-2', 'AT611904300234573201', 'BKAUATWW');
    const next = await collect(setup, gateway, plusDays(setup.today, 1), [jan, anna]);
    expect(await sequenceTypes(setup, next.token)).toEqual({
      [next.payments[0]!]: 'RCUR',
      [next.payments[1]!]: 'FRST',
    });
  });

  it('is FRST again after the bank rejected the first collection', async () => {
    const setup = await debitAccount(t, 'EUR');
    const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
    const jan = await withMandate(setup, gateway, 'ACME-SEQ-3', 'NL91ABNA0417164300', 'ABNANL2A');
    const first = await collect(setup, gateway, setup.today, [jan]);
    const file = await download(setup.account, first.token);
    const messageId = readPain008(file.text).GrpHdr.MsgId as string;
    const report = await uploadReturns(
      setup.account,
      first.token,
      pain002(messageId, [{ endToEndId: String(first.payments[0]), status: 'RJCT', reasonCode: 'AM04' }]),
    );
    expect(report.status, report.text).toBe(200);
    expect((await paymentOf(setup.account, first.payments[0]!)).Status).toBe('Failed');

    const again = await collect(setup, gateway, plusDays(setup.today, 1), [jan]);
    expect(await sequenceTypes(setup, again.token)).toEqual({ [again.payments[0]!]: 'FRST' });
  });
});
