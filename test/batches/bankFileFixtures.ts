import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser } from 'fast-xml-parser';
import { expect } from 'vitest';
import { earliestActionDate } from '../../src/core/bankingDays.ts';
import type { Rail } from '../../src/core/bankingDays.ts';
import { addGateway } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import { customerWithBankAccount } from '../helpers/invoices.ts';
import type { CustomerWithMethod } from '../helpers/invoices.ts';
import type { ApiResponse, TestAccount, TestService } from '../helpers/service.ts';
import type { DebitSetup } from './fixtures.ts';
import { advanceTo, debitAccount, debitInvoice, plusDays } from './fixtures.ts';

/**
 * What the bankfile gateway's tests need beside fixtures.ts: a bankfile gateway with the creditor's details, bank
 * accounts validated against it, hand-made batch lines, and the bank's side of the exchange (reading the files we
 * make, writing the status reports and return files the bank sends back), as the unit tests of src/modules/batches/bankFiles/
 * do it.
 */

/** A SEPA creditor: the settings `billing gateway add --settings` takes for sepa files. */
export const SEPA_CREDITOR = {
  creditorName: 'Acme Subscriptions GmbH',
  creditorIban: 'DE02120300000000202051',
  creditorBic: 'BYLADEM1001',
  creditorSchemeId: 'DE98ZZZ09999999999',
} as const;

/** An ACH originator: the settings for NACHA files. */
export const ACH_ORIGINATOR = {
  immediateDestination: '021000021',
  immediateDestinationName: 'JPMorgan Chase',
  immediateOrigin: '1234567890',
  immediateOriginName: 'Acme Billing Inc',
  companyName: 'Acme Billing',
  companyIdentification: '1234567890',
  originatingDfi: '021000021',
} as const;

export interface GatewayRef {
  gatewayId: number;
  gatewayToken: string;
}

/** Adds a bankfile gateway with these settings to the account; its id and its GatewayToken as GET /v1/gateways shows it. */
export async function addBankFileGateway(
  t: TestService,
  setup: DebitSetup,
  settings: Record<string, unknown>,
): Promise<GatewayRef> {
  const ctx = await accountContext(t, setup.account.accountId);
  const added = await addGateway(ctx, { type: 'bankfile', friendlyName: 'Bank files', settings });
  const listed = (await ok(setup.account, 'GET', '/v1/gateways')) as any[];
  const gateway = listed.find((g) => g.gatewayID === added.id);
  if (!gateway) throw new Error(`GET /v1/gateways does not list gateway ${added.id}`);
  return { gatewayId: added.id, gatewayToken: gateway.GatewayToken };
}

export const sepaAccount = (holder: string, iban: string, bic: string) => ({
  Method: 'sepa',
  AccountType: 'Current',
  AccountHolder: holder,
  Bank: 'Test Bank',
  IBAN: iban,
  BIC: bic,
});

export const achAccount = (holder: string, accountNumber: string) => ({
  Method: 'ach',
  AccountType: 'Checking',
  AccountHolder: holder,
  Bank: 'Test Bank',
  AccountNumber: accountNumber,
  RoutingNumber: '110000000',
});

export type BankCustomer = CustomerWithMethod;

/**
 * A customer billed in `currency`, named after the account holder, with these bank details as primary method,
 * validated at `gatewayId` unless `validated` is false (then the build must refuse its lines).
 */
export async function bankCustomer(
  setup: DebitSetup,
  currency: string,
  details: Record<string, unknown>,
  options: { gatewayId: number; validated?: boolean },
): Promise<BankCustomer> {
  const [name, ...lastNames] = String(details.AccountHolder).split(' ');
  return customerWithBankAccount(setup.account, {
    customer: {
      Name: name,
      LastName: lastNames.join(' ') || 'Customer',
      Email: 'debtor@example.com',
      CurrencyCode: currency,
    },
    bankAccount: details,
    validateAt: options.validated === false ? undefined : options.gatewayId,
  });
}

/** A debit-order invoice of `amount` through the gateway, due in 30 days (never bundled by the tests' runs). */
export const bankInvoice = (setup: DebitSetup, gatewayId: number, customer: BankCustomer, amount: number) =>
  debitInvoice(setup, customer, { dueIn: 30, amount, gatewayId });

/** An open batch of the gateway in `currency`, action date today (the submit sets the real one). */
export async function openBatch(setup: DebitSetup, gatewayToken: string, currency: string): Promise<string> {
  const batch = await ok(setup.account, 'POST', '/v1/batches', {
    CurrencyCode: currency,
    GatewayToken: gatewayToken,
    ActionDate: setup.today,
  });
  return batch.BatchToken;
}

/** A line paying the whole invoice from the customer's bank account; its paymentID. */
export async function addLine(
  setup: DebitSetup,
  batchToken: string,
  customer: BankCustomer,
  invoiceId: number,
  amount: number,
): Promise<number> {
  const line = await ok(setup.account, 'POST', '/v1/batches/payments', {
    BatchToken: batchToken,
    customerID: customer.customerId,
    Amount: amount,
    paymentMethodID: customer.paymentMethodId,
    PaymentApplied: [{ amount, invoiceID: invoiceId }],
  });
  return line.paymentID;
}

export interface DebtorLine {
  customer: BankCustomer;
  invoiceId: number;
  paymentId: number;
}

/**
 * For each debtor, in order: a customer with that bank account validated at the gateway, an invoice of `amount`
 * and a line of the batch paying it.
 */
export async function debtorLines(
  setup: DebitSetup,
  gatewayId: number,
  batchToken: string,
  currency: string,
  debtors: readonly { details: Record<string, unknown>; amount: number }[],
): Promise<DebtorLine[]> {
  const lines: DebtorLine[] = [];
  for (const { details, amount } of debtors) {
    const customer = await bankCustomer(setup, currency, details, { gatewayId });
    const invoiceId = await bankInvoice(setup, gatewayId, customer, amount);
    lines.push({
      customer,
      invoiceId,
      paymentId: await addLine(setup, batchToken, customer, invoiceId, amount),
    });
  }
  return lines;
}

export const batchOf = (account: TestAccount, token: string) => ok(account, 'GET', `/v1/batches/${token}`);
export const paymentOf = (account: TestAccount, id: number) => ok(account, 'GET', `/v1/payments/${id}`);
export const invoiceOf = (account: TestAccount, id: number) => ok(account, 'GET', `/v1/invoices/${id}`);

export const fileOf = (account: TestAccount, token: string) =>
  account.request('GET', `/v1/batches/${token}/file`);
export const uploadReturns = (account: TestAccount, token: string, document: string) =>
  account.request('POST', `/v1/batches/${token}/returns`, { body: { document } });

/** The batch's bank file, which must be there (200). */
export async function download(account: TestAccount, token: string): Promise<ApiResponse> {
  const res = await fileOf(account, token);
  expect(res.status, res.text).toBe(200);
  return res;
}

/** A problem answer with this status and code. */
export function expectProblem(res: ApiResponse, status: number, code: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body.code, res.text).toBe(code);
}

/** The file name the download offers. */
export function fileNameOf(res: ApiResponse): string {
  const disposition = res.headers.get('content-disposition') ?? '';
  const match = /^attachment; filename="([^"]+)"$/.exec(disposition);
  expect(match, `content-disposition: ${disposition}`).not.toBeNull();
  return match![1]!;
}

/**
 * Submits the batch today for the earliest action date `rail` allows, and moves the clock to tomorrow, whose run
 * builds it; the action date.
 */
export async function submitAndBuild(setup: DebitSetup, token: string, rail: Rail): Promise<string> {
  const actionDate = earliestActionDate(rail, setup.today);
  await ok(setup.account, 'PUT', '/v1/batches/submit', { BatchToken: token, ActionDate: actionDate });
  await advanceTo(setup.account, plusDays(setup.today, 1));
  return actionDate;
}

/** A one-line SEPA batch of a bankfile gateway, submitted today and built by the next day's run. */
export async function builtSepaBatch(t: TestService) {
  const setup = await debitAccount(t, 'EUR');
  const gateway = await addBankFileGateway(t, setup, SEPA_CREDITOR);
  const token = await openBatch(setup, gateway.gatewayToken, 'EUR');
  const details = sepaAccount('Jan de Vries', 'NL91ABNA0417164300', 'ABNANL2A');
  const customer = await bankCustomer(setup, 'EUR', details, { gatewayId: gateway.gatewayId });
  const invoiceId = await bankInvoice(setup, gateway.gatewayId, customer, 100);
  const paymentId = await addLine(setup, token, customer, invoiceId, 100);
  const actionDate = await submitAndBuild(setup, token, 'sepa');
  expect((await batchOf(setup.account, token)).State).toBe('submitted');
  return { setup, gateway, token, customer, paymentId, actionDate };
}

// The official XSD (test/fixtures/README.md).
const PAIN_008_XSD = fileURLToPath(new URL('../fixtures/iso20022/pain.008.001.02.xsd', import.meta.url));

/** Throws with xmllint's own message unless the document validates against the official pain.008.001.02 XSD. */
export function validatePain008(xml: string): void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pain008-'));
  try {
    const file = path.join(dir, 'pain.008.xml');
    fs.writeFileSync(file, xml);
    try {
      execFileSync('xmllint', ['--noout', '--schema', PAIN_008_XSD, file], { stdio: 'pipe' });
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
      throw new Error(`xmllint rejects the pain.008:\n${stderr}\n${xml}`);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const xmlParser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  isArray: (name) => ['PmtInf', 'DrctDbtTxInf'].includes(name),
});

/** The CstmrDrctDbtInitn of a pain.008, as plain objects (every value a string). */
export function readPain008(xml: string): any {
  return xmlParser.parse(xml).Document.CstmrDrctDbtInitn;
}

export interface StatusReportEntry {
  endToEndId: string;
  status: 'RJCT' | 'ACSC' | 'ACCP' | 'PDNG';
  reasonCode?: string;
}

/** A pain.002.001.03 status report as the creditor's bank sends one back for the message `originalMessageId`. */
export function pain002(originalMessageId: string, entries: readonly StatusReportEntry[]): string {
  const transactions = entries
    .map(
      (entry, i) => `
      <TxInfAndSts>
        <StsId>ST-${i + 1}</StsId>
        <OrgnlEndToEndId>${entry.endToEndId}</OrgnlEndToEndId>
        <TxSts>${entry.status}</TxSts>${
          entry.reasonCode
            ? `
        <StsRsnInf>
          <Rsn>
            <Cd>${entry.reasonCode}</Cd>
          </Rsn>
        </StsRsnInf>`
            : ''
        }
      </TxInfAndSts>`,
    )
    .join('');
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.03" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <CstmrPmtStsRpt>
    <GrpHdr>
      <MsgId>STS-${originalMessageId}</MsgId>
      <CreDtTm>2025-03-11T06:12:44</CreDtTm>
    </GrpHdr>
    <OrgnlGrpInfAndSts>
      <OrgnlMsgId>${originalMessageId}</OrgnlMsgId>
      <OrgnlMsgNmId>pain.008.001.02</OrgnlMsgNmId>
      <GrpSts>PART</GrpSts>
    </OrgnlGrpInfAndSts>
    <OrgnlPmtInfAndSts>
      <OrgnlPmtInfId>${originalMessageId}-1</OrgnlPmtInfId>
      <PmtInfSts>PART</PmtInfSts>${transactions}
    </OrgnlPmtInfAndSts>
  </CstmrPmtStsRpt>
</Document>
`;
}

/**
 * @midlandsbank/node-nacha, an independent NACHA parser (CommonJS, untyped): the shapes it returns, as far as
 * these tests read them.
 */
export interface NachaEntry {
  transactionCode: string;
  receivingDFIIdentification: number;
  checkDigit: number;
  dfiAccount: string;
  amount: number;
  identificationNumber: string;
  receivingCompanyName: string;
}
export interface NachaFile {
  file: { destination: string; origin: string; destinationName: string; originName: string };
  batches: {
    companyName: string;
    companyId: string;
    entryClassCode: string;
    description: string;
    effectiveDate: string;
    originatingDFIIdentification: string;
    entries: NachaEntry[];
    footer: { entryAndAddendaCount: number; totalDebit: number; totalCredit: number };
  }[];
}

const require = createRequire(import.meta.url);
const nacha = require('@midlandsbank/node-nacha') as { from(source: string): { data: NachaFile } };

/** A NACHA file as node-nacha reads it. */
export function readNacha(text: string): NachaFile {
  return nacha.from(text).data;
}

const digits = (value: number, width: number) => String(value).padStart(width, '0');

/**
 * The return file an ODFI sends back for our debit file: one PPD batch returning the named entries, each with its
 * return reason (R01, R03...) in a 99 addenda that carries the original entry's trace number. Return codes of
 * debits are 26 (checking) and 36 (savings); controls count, hash and total the returned entries.
 */
export function nachaReturnFile(
  debitFile: string,
  returns: readonly { paymentId: number; code: string; info?: string }[],
): string {
  const records = debitFile.split(/\r?\n/).filter((r) => r !== '' && r !== '9'.repeat(94));
  const header = records[0]!;
  const batchHeader = records.find((r) => r.startsWith('5'))!;
  const entries = records.filter((r) => r.startsWith('6'));
  const out = [header, batchHeader];
  let count = 0;
  let hash = 0;
  let debit = 0;
  returns.forEach((ret, i) => {
    const entry = entries.find((e) => e.slice(39, 54).trim() === String(ret.paymentId));
    if (!entry) throw new Error(`the debit file has no entry for payment ${ret.paymentId}`);
    const receivingDfi = entry.slice(3, 11);
    const originalTrace = entry.slice(79, 94);
    const trace = `${receivingDfi}${digits(i + 1, 7)}`;
    // 27 → 26, 37 → 36: the return of a debit to a checking or savings account.
    out.push(`6${entry[1]}6${entry.slice(3, 78)}1${trace}`);
    out.push(
      `799${ret.code}${originalTrace}${' '.repeat(6)}${receivingDfi}${(ret.info ?? '').padEnd(44)}${trace}`,
    );
    count += 2;
    hash = (hash + Number(receivingDfi)) % 10_000_000_000;
    debit += Number(entry.slice(29, 39));
  });
  const companyId = batchHeader.slice(40, 50);
  const odfi = batchHeader.slice(79, 87);
  const batchNumber = batchHeader.slice(87, 94);
  out.push(
    `8225${digits(count, 6)}${digits(hash, 10)}${digits(debit, 12)}${digits(0, 12)}${companyId}` +
      `${' '.repeat(25)}${odfi}${batchNumber}`,
  );
  const blocks = Math.ceil((out.length + 1) / 10);
  out.push(
    `9${digits(1, 6)}${digits(blocks, 6)}${digits(count, 8)}${digits(hash, 10)}${digits(debit, 12)}` +
      `${digits(0, 12)}${' '.repeat(39)}`,
  );
  while (out.length % 10 !== 0) out.push('9'.repeat(94));
  return `${out.join('\n')}\n`;
}
