import { nowInstant, today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError, ValidationError } from '../../errors.ts';
import { dateAt } from '../../core/calendar.ts';
import type { Rail } from '../../core/bankingDays.ts';
import { buildNachaDebitFile } from './bankFiles/nacha.ts';
import type { AchAccountType, SecCode } from './bankFiles/nacha.ts';
import { buildPain008, invoicesRemittance } from './bankFiles/sepaDirectDebit.ts';
import { gatewaySettings, getGateway, makesBankFiles } from '../gateways/index.ts';
import type { Gateway } from '../gateways/index.ts';
import { invoiceNumbersByIds } from '../invoicing/index.ts';
import { allocationsOfSources } from '../ledger/index.ts';
import type { PaymentMethod } from '../paymentMethods/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchLine, BatchRecord } from './batch.ts';
import { getBatchRecord } from './batch.service.ts';
import { buildNetcashBatchFile } from './netcashBatchFile.ts';
import type { DebiCheckCollection } from './netcashBatchFile.ts';
import { debiCheckAccountReference, emandatesOfPaymentMethods } from '../mandates/index.ts';

/**
 * The bank file of a batch of the bankfile gateway (docs/bank-files.md): SEPA Direct Debit pain.008.001.02 for
 * sepa batches, a NACHA file of PPD (or CCD) debits for ach ones, made from the batch's lines and the creditor's
 * details in the gateway's settings. The same batch always makes the same file: its message id and creation time
 * come from the batch's submission, not from the moment of the download.
 */

export interface BankFile {
  fileName: string;
  contentType: string;
  body: string;
  /** The pain.008 MsgId, or the NACHA file's id: what the bank's reports name. */
  messageId: string;
}

/** The settings a bankfile gateway needs per rail, as `billing gateway add --settings` takes them. */
const REQUIRED_SETTINGS: Readonly<Record<'sepa' | 'ach', readonly string[]>> = {
  sepa: ['creditorName', 'creditorIban', 'creditorSchemeId'],
  ach: [
    'immediateDestination',
    'immediateDestinationName',
    'immediateOrigin',
    'immediateOriginName',
    'companyName',
    'companyIdentification',
    'originatingDfi',
  ],
};

const text = (settings: Record<string, unknown>, key: string): string =>
  typeof settings[key] === 'string' ? (settings[key] as string) : '';

/** The account-type word of a bank account, as ACH knows it. */
const achAccountType = (accountType: string): AchAccountType =>
  accountType.toLowerCase() === 'savings' ? 'savings' : 'checking';

/**
 * The builders name a bad input by its path (`lines[3].debtorIban`); a BuildError names the line's payment
 * instead, which is what the business can find and mend.
 */
function asBuildProblems(error: ValidationError, lines: readonly BatchLine[]): string[] {
  return error.fields.map(({ field, message }) => {
    const at = /^(?:lines|batches\[0\]\.entries)\[(\d+)\]\.?(.*)$/.exec(field);
    const line = at ? lines[Number(at[1])] : undefined;
    return line ? `payment ${line.paymentId}: ${at![2] || 'line'} ${message}` : `${field}: ${message}`;
  });
}

/** The message id of a batch's file: short enough for pain.008's Max35Text, the same for every download. */
function messageIdOf(batch: BatchRecord): string {
  return `B${batch.id}S${Math.floor(Date.parse(batch.submittedAt ?? batch.createdAt) / 1000)}`;
}

/**
 * The numbers of the invoices each line pays, by payment, in the order they were allocated: what the debtor's
 * statement shows of a SEPA debit (its remittance line).
 */
async function invoiceNumbersOfLines(
  ctx: ServiceContext,
  lines: readonly BatchLine[],
): Promise<Map<number, string[]>> {
  const allocations = await allocationsOfSources(
    ctx,
    'payment',
    lines.map((line) => line.paymentId),
  );
  const invoiceIdsOf = (paymentId: number) =>
    (allocations.get(paymentId) ?? []).filter((a) => a.targetType === 'invoice').map((a) => a.targetId);
  const numbers = await invoiceNumbersByIds(ctx, [
    ...new Set(lines.flatMap((line) => invoiceIdsOf(line.paymentId))),
  ]);
  return new Map(
    lines.map((line) => [
      line.paymentId,
      invoiceIdsOf(line.paymentId)
        .map((id) => numbers.get(id))
        .filter((number): number is number => number != null)
        .map(String),
    ]),
  );
}

/**
 * The mandate a SEPA line is collected under: the one set on the bank account; else PM<its id>, signed the day the
 * account was added (docs/gateways.md, "The bankfile gateway"). eMandates are debit orders, never SEPA.
 */
function mandateOf(
  ctx: ServiceContext,
  method: PaymentMethod,
): { mandateId: string; mandateSignatureDate: string } {
  const account = method.bankAccount!;
  return {
    mandateId: account.mandateReference ?? `PM${method.id}`,
    mandateSignatureDate: account.mandateSignedOn ?? dateAt(method.createdAt, ctx.account.timeZone),
  };
}

/** Which mandate a SEPA collection is under, for its history: its reference, else the bank account itself. */
const mandateKey = (methodId: number, mandateReference: string | null) =>
  mandateReference ?? `method:${methodId}`;

/**
 * Each SEPA line's sequence type (docs/bank-files.md, "SEPA direct debit: `buildPain008`"): FRST for the first collection under its
 * mandate, RCUR after. A mandate has a first collection once a batch handed to the bank carried one of its lines
 * and that payment did not fail: a rejected or returned first collection leaves the next one FRST again. Within
 * one batch, the first line under a mandate is FRST and any other RCUR.
 */
async function sequenceTypesOf(
  ctx: ServiceContext,
  batch: BatchRecord,
  lines: readonly BatchLine[],
  methods: ReadonlyMap<number, PaymentMethod>,
): Promise<Map<number, 'FRST' | 'RCUR'>> {
  const methodIds = [...new Set(lines.map((line) => line.paymentMethodId!))];
  const references = methodIds.flatMap((id) => methods.get(id)?.bankAccount?.mandateReference ?? []);
  const collected = new Set(
    (await repo.listSepaCollectionsUnder(ctx.db, ctx.account.id, methodIds, references, batch.id)).map(
      (collection) => mandateKey(collection.paymentMethodId!, collection.mandateReference),
    ),
  );
  const types = new Map<number, 'FRST' | 'RCUR'>();
  for (const line of lines) {
    const key = mandateKey(
      line.paymentMethodId!,
      methods.get(line.paymentMethodId!)?.bankAccount?.mandateReference ?? null,
    );
    types.set(line.paymentId, collected.has(key) ? 'RCUR' : 'FRST');
    collected.add(key);
  }
  return types;
}

function buildFor(
  ctx: ServiceContext,
  rail: 'sepa' | 'ach',
  batch: BatchRecord,
  lines: readonly BatchLine[],
  methods: ReadonlyMap<number, PaymentMethod>,
  settings: Record<string, unknown>,
  invoiceNumbers: ReadonlyMap<number, readonly string[]>,
  sequenceTypes: ReadonlyMap<number, 'FRST' | 'RCUR'>,
): BankFile {
  const messageId = messageIdOf(batch);
  const createdAt = batch.submittedAt ?? batch.createdAt;
  const method = (line: BatchLine) => methods.get(line.paymentMethodId!)!;
  if (rail === 'sepa') {
    const body = buildPain008({
      messageId,
      createdAt,
      initiatingPartyName: text(settings, 'creditorName'),
      creditor: {
        name: text(settings, 'creditorName'),
        iban: text(settings, 'creditorIban'),
        ...(text(settings, 'creditorBic') ? { bic: text(settings, 'creditorBic') } : {}),
        schemeId: text(settings, 'creditorSchemeId'),
      },
      requestedCollectionDate: batch.actionDate,
      lines: lines.map((line) => {
        const account = method(line).bankAccount!;
        return {
          endToEndId: String(line.paymentId),
          amountMinor: line.amountMinor,
          currency: batch.currencyCode,
          sequenceType: sequenceTypes.get(line.paymentId) ?? 'FRST',
          ...mandateOf(ctx, method(line)),
          debtorName: account.accountHolder,
          debtorIban: account.secrets?.iban ?? '',
          ...(account.bic ? { debtorBic: account.bic } : {}),
          // A line paying no invoice (an amount on account) names itself.
          remittanceText:
            invoicesRemittance(invoiceNumbers.get(line.paymentId) ?? []) ?? `Payment ${line.paymentId}`,
        };
      }),
    });
    return { fileName: `${messageId}.xml`, contentType: 'application/xml', body, messageId };
  }
  const body = buildNachaDebitFile({
    immediateDestination: text(settings, 'immediateDestination'),
    immediateDestinationName: text(settings, 'immediateDestinationName'),
    immediateOrigin: text(settings, 'immediateOrigin'),
    immediateOriginName: text(settings, 'immediateOriginName'),
    createdAt,
    timeZone: ctx.account.timeZone,
    referenceCode: String(batch.id).slice(-8),
    batches: [
      {
        secCode: (text(settings, 'secCode') || 'PPD') as SecCode,
        companyName: text(settings, 'companyName'),
        companyIdentification: text(settings, 'companyIdentification'),
        entryDescription: text(settings, 'entryDescription') || 'SUBSCRIPT',
        effectiveEntryDate: batch.actionDate,
        originatingDfi: text(settings, 'originatingDfi'),
        entries: lines.map((line) => {
          const account = method(line).bankAccount!;
          return {
            id: String(line.paymentId),
            amountMinor: line.amountMinor,
            currency: batch.currencyCode,
            routingNumber: account.routingNumber ?? '',
            accountNumber: account.secrets?.accountNumber ?? '',
            accountType: achAccountType(account.accountType),
            name: account.accountHolder,
          };
        }),
      },
    ],
  });
  return { fileName: `${messageId}.ach`, contentType: 'text/plain', body, messageId };
}

/**
 * The batch's file, or the problems that keep it from being made (each naming the payment or the setting at
 * fault): what the build reports as BuildError and the download as a 409.
 */
export async function makeBankFile(
  ctx: ServiceContext,
  gateway: Gateway,
  batch: BatchRecord,
  rail: Rail,
  lines: readonly BatchLine[],
  /** The lines' bank accounts, opened (the build has them already). */
  methods: ReadonlyMap<number, PaymentMethod>,
): Promise<BankFile | { problems: string[] }> {
  if (gateway.type === 'netcash') return makeNetcashFile(ctx, gateway, batch, rail, lines, methods);
  if (rail === 'debit_order') {
    return {
      problems: ['a bank file is made for sepa and ach batches; SA debit orders go through a provider'],
    };
  }
  const settings = await gatewaySettings(ctx, gateway);
  const missing = REQUIRED_SETTINGS[rail].filter((key) => text(settings, key) === '');
  if (missing.length > 0) {
    return { problems: [`gateway ${gateway.id} settings: ${missing.join(', ')} required for ${rail} files`] };
  }
  try {
    const invoiceNumbers = rail === 'sepa' ? await invoiceNumbersOfLines(ctx, lines) : new Map();
    const sequenceTypes = rail === 'sepa' ? await sequenceTypesOf(ctx, batch, lines, methods) : new Map();
    return buildFor(ctx, rail, batch, lines, methods, settings, invoiceNumbers, sequenceTypes);
  } catch (error) {
    if (error instanceof ValidationError) return { problems: asBuildProblems(error, lines) };
    throw error;
  }
}

/**
 * A netcash gateway's debit-order batch as Netcash's NIF file (docs/gateways/netcash.md, "Batches"), named by
 * the batch's message id, which is also the file's batch name.
 */
async function makeNetcashFile(
  ctx: ServiceContext,
  gateway: Gateway,
  batch: BatchRecord,
  rail: Rail,
  lines: readonly BatchLine[],
  methods: ReadonlyMap<number, PaymentMethod>,
): Promise<BankFile | { problems: string[] }> {
  if (rail !== 'debit_order') {
    return { problems: [`gateway ${gateway.id} (netcash) collects SA debit orders, not ${rail}`] };
  }
  const messageId = messageIdOf(batch);
  try {
    const settings = await gatewaySettings(ctx, gateway);
    const debiChecks = await debiCheckCollectionsOf(ctx, lines);
    const body = buildNetcashBatchFile(batch, messageId, lines, methods, settings, debiChecks);
    if (typeof body !== 'string') return body;
    return { fileName: `${messageId}.txt`, contentType: 'text/plain', body, messageId };
  } catch (error) {
    if (error instanceof ValidationError) return { problems: asBuildProblems(error, lines) };
    throw error;
  }
}

/**
 * The authenticated DebiCheck mandates the lines collect under, by payment method id (docs/gateways/netcash.md,
 * "DebiCheck"): what each line of a DebiCheck file names.
 */
async function debiCheckCollectionsOf(
  ctx: ServiceContext,
  lines: readonly BatchLine[],
): Promise<Map<number, DebiCheckCollection>> {
  const mandates = await emandatesOfPaymentMethods(ctx, [
    ...new Set(lines.map((line) => line.paymentMethodId!)),
  ]);
  const collections = new Map<number, DebiCheckCollection>();
  for (const [methodId, mandate] of mandates) {
    const debiCheck = mandate.debiCheck;
    if (debiCheck?.status !== 'authenticated' || debiCheck.contractReference === null) continue;
    collections.set(methodId, {
      accountReference: debiCheckAccountReference(mandate.id),
      contractReference: debiCheck.contractReference,
      trackingDays: debiCheck.trackingDays,
    });
  }
  return collections;
}

/** What a built batch's stored file is served as. */
function fileOf(batch: BatchRecord, body: string): BankFile {
  const messageId = batch.providerRef ?? '';
  if (batch.rail === 'sepa')
    return { fileName: `${messageId}.xml`, contentType: 'application/xml', body, messageId };
  const extension = batch.rail === 'ach' ? 'ach' : 'txt';
  return { fileName: `${messageId}.${extension}`, contentType: 'text/plain', body, messageId };
}

/**
 * The file of a built batch of a bankfile gateway, for the business to upload to its bank: the file made when the
 * batch was built, whatever changed since (a bank account edited, the gateway's settings). The first download is
 * the batch leaving for the bank: from then on its action date moves it to processing. A file never taken by its
 * action date is not handed out after it (the bank would refuse a past date): cancel the batch and collect again.
 * A file the gateway uploaded itself (Netcash's web service) is handed out as a copy: its download changes nothing.
 */
export async function downloadBankFile(ctx: ServiceContext, token: string): Promise<BankFile> {
  const batch = await getBatchRecord(ctx, token);
  const gateway = await getGateway(ctx, batch.gatewayId);
  if (!makesBankFiles(gateway)) {
    throw new ConflictError(
      'batch_not_bank_file',
      `Batch ${token} goes through gateway ${gateway.id} (${gateway.type}), which takes batches itself: it has no file`,
    );
  }
  const sealed = await repo.findBatchFile(ctx.db, ctx.account.id, batch.id);
  if (sealed === null || batch.state === 'cancelled') {
    throw new ConflictError(
      'batch_not_submitted',
      `Batch ${token} is ${batch.state}: its file exists once it is submitted and built, and goes with a cancel`,
    );
  }
  // A file its gateway uploaded itself (Netcash's web service) left with the upload: a download is a copy.
  if (batch.fileDownloadedAt === null && batch.uploadToken === null) {
    if (today(ctx) > batch.actionDate) {
      throw new ConflictError(
        'bank_file_too_late',
        `Batch ${token}: its action date ${batch.actionDate} has passed and its file was never taken to the bank; cancel it and collect again`,
      );
    }
    // The first download is the file leaving for the bank: never from a batch cancelled meanwhile.
    await withTransaction(ctx, async (tctx) => {
      const locked = await repo.lockBatch(tctx.db, tctx.account.id, batch.id);
      if (locked?.state !== 'submitted') {
        throw new ConflictError(
          'batch_not_submitted',
          `Batch ${token} is ${locked?.state}: its file is not handed out`,
        );
      }
      if (locked.fileDownloadedAt === null) {
        await repo.updateBatch(tctx.db, tctx.account.id, batch.id, { fileDownloadedAt: nowInstant(tctx) });
      }
    });
  }
  return fileOf(batch, ctx.secrets.open(sealed));
}
