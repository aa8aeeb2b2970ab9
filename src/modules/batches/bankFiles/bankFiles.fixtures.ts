import { createRequire } from 'node:module';
import { expect } from 'vitest';
import { ValidationError } from '../../../errors.ts';
import type { NachaDebitBatch, NachaDebitEntry, NachaDebitFileInput } from './nacha.ts';

// What the bank-file tests share: the ValidationError a builder or parser throws, and for NACHA (nacha.test.ts,
// nachaReturns.test.ts) debit entries, batches and files to build, the independent parser that reads them back,
// and the checks of our own on any built file.

/**
 * @midlandsbank/node-nacha, an independent NACHA parser (CommonJS, untyped): the shapes it returns, as far as
 * these tests read them.
 */
export interface ParsedControl {
  batchCount?: number;
  blockCount?: number;
  entryAndAddendaCount: number;
  entryHash: number;
  totalDebit: number;
  totalCredit: number;
}
export interface ParsedEntry {
  transactionCode: string;
  receivingDFIIdentification: number;
  checkDigit: number;
  dfiAccount: string;
  amount: number;
  identificationNumber: string;
  receivingCompanyName: string;
  addendaIndicator: string;
  traceNumber: number;
  addenda?: { type: string; info: string; num: number; entryNum: number };
}
export interface ParsedBatch {
  serviceClassCode: number;
  companyName: string;
  companyId: string;
  entryClassCode: string;
  description: string;
  effectiveDate: string;
  originatorStatusCode: string;
  originatingDFIIdentification: string;
  num: number;
  entries: ParsedEntry[];
  footer: ParsedControl & { companyId: string; originatingDFIIdentification: string; num: number };
}
export interface ParsedFile {
  file: {
    priority: number;
    destination: string;
    origin: string;
    creationDate: string;
    creationTime: string;
    idModifier: string;
    recordSize: string;
    blockingFactor: string;
    formatCode: string;
    destinationName: string;
    originName: string;
    referenceCode: string;
    footer: ParsedControl;
  };
  batches: ParsedBatch[];
}

const require = createRequire(import.meta.url);
export const nacha = require('@midlandsbank/node-nacha') as {
  from(source: string | ParsedFile): { data: ParsedFile; to(format: 'ach'): string };
};
/** The library's own arithmetic for batch and file controls, run over the entries it parsed. */
export const calculate = require('@midlandsbank/node-nacha/lib/api/calculate') as (options: {
  ach: ParsedFile;
  set: boolean;
}) => { footer: ParsedControl & { lineCount: number }; batchFooters: ParsedControl[] };

export function entry(overrides: Partial<NachaDebitEntry> = {}): NachaDebitEntry {
  return {
    id: '1001',
    amountMinor: 1999,
    currency: 'USD',
    routingNumber: '110000000',
    accountNumber: '000123456789',
    accountType: 'checking',
    name: 'José Müller',
    ...overrides,
  };
}

export function batch(entries: NachaDebitEntry[], overrides: Partial<NachaDebitBatch> = {}): NachaDebitBatch {
  return {
    secCode: 'PPD',
    companyName: 'Acme Billing',
    companyIdentification: '1234567890',
    entryDescription: 'Subscript',
    effectiveEntryDate: '2025-03-04',
    originatingDfi: '021000021',
    entries,
    ...overrides,
  };
}

export function file(
  batches: NachaDebitBatch[],
  overrides: Partial<NachaDebitFileInput> = {},
): NachaDebitFileInput {
  return {
    immediateDestination: '021000021',
    immediateDestinationName: 'JPMorgan Chase',
    immediateOrigin: '1234567890',
    immediateOriginName: 'Acme Billing Inc',
    createdAt: '2025-03-03T21:45:00Z',
    batches,
    ...overrides,
  };
}

/** The ValidationError `fn` throws; fails when it throws nothing or something else. */
export function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

export function records(text: string): string[] {
  expect(text.endsWith('\n')).toBe(true);
  return text.slice(0, -1).split('\n');
}

/** The checks of our own on any built file: record width, blocking, and padding only after the file control. */
export function expectWellFormed(text: string): void {
  const lines = records(text);
  for (const line of lines) expect(line).toHaveLength(94);
  expect(lines.length % 10).toBe(0);
  const control = lines.findIndex((line) => line.startsWith('9') && line !== '9'.repeat(94));
  expect(lines.slice(control + 1).every((line) => line === '9'.repeat(94))).toBe(true);
  expect(Number(lines[control]!.slice(7, 13))).toBe(lines.length / 10);
}
