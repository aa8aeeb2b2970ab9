import { afterEach, describe, expect, it } from 'vitest';
import { documentSettings } from './config.ts';
import type { Customer } from './modules/customers/index.ts';
import { STATEMENT_DOCUMENT } from './modules/statements/index.ts';
import type { StatementDocument } from './modules/statements/index.ts';
import { DocumentPool } from './pdf/documentPool.ts';

/**
 * Real drawings in the pool's threads (this entry), several at once in slices (src/pdf/drawingTurns.ts;
 * docs/operations.md, "PDF documents"): statements, whose model is small to write here and whose rows give way.
 */
const ENTRY = new URL('./documentWorker.ts', import.meta.url);

let pool: DocumentPool | undefined;
afterEach(async () => {
  await pool?.close();
  pool = undefined;
});

function startPool(env: Record<string, string>): DocumentPool {
  pool = new DocumentPool(documentSettings({ PDF_THREADS: '1', ...env }), ENTRY);
  return pool;
}

const own = (accountId: number) => ({ accountId, customer: null });

describe('drawings in turns on a thread', () => {
  it('draws another account’s small document beside a long one, in slices, not after it', async () => {
    const p = startPool({});
    const alone = await p.render(own(2), async () => statement(1));
    const settled: string[] = [];
    const drawn = (label: string) => (pdf: Buffer) => {
      settled.push(label);
      return pdf;
    };
    const long = p.render(own(1), async () => statement(1500)).then(drawn('long'));
    const small = p.render(own(2), async () => statement(1)).then(drawn('small'));
    const [longPdf, smallPdf] = await Promise.all([long, small]);
    expect(settled).toEqual(['small', 'long']);
    // Drawn in turns with another, a document is the same file as drawn alone.
    expect(smallPdf.equals(alone)).toBe(true);
    expect(longPdf.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('draws one document at a time on a thread with PDF_DOCUMENTS_PER_THREAD 1', async () => {
    const p = startPool({ PDF_DOCUMENTS_PER_THREAD: '1' });
    const settled: string[] = [];
    await Promise.all([
      p.render(own(1), async () => statement(1000)).then(() => settled.push('long')),
      p.render(own(2), async () => statement(1)).then(() => settled.push('small')),
    ]);
    expect(settled).toEqual(['long', 'small']);
  });

  it('stops a thread whose drawing holds it past the budget, and draws its other documents again', async () => {
    // A budget the small document beside keeps on a loaded machine (at 500 ms it ran out while two suites ran).
    const p = startPool({ PDF_TIMEOUT_MS: '1500' });
    // One line of four megabytes is laid out in one piece: the drawing cannot give way until it is done (2.8 s on
    // the fastest machine seen, where half a megabyte took 0.43 s, under the budget).
    const stuck = p
      .render(own(1), async () => statement(1, 'lorem ipsum dolor sit amet '.repeat(160_000)))
      .catch((e) => e);
    const beside = p.render(own(2), async () => statement(2));
    expect(await stuck).toMatchObject({ code: 'document_timeout', status: 503 });
    expect((await beside).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('answers document_timeout when a drawing’s slices add up to more than the budget', async () => {
    const p = startPool({ PDF_TIMEOUT_MS: '1000' });
    expect(await p.render(own(1), async () => statement(20_000)).catch((e) => e)).toMatchObject({
      code: 'document_timeout',
    });
    // The thread went on: it draws the next document.
    expect((await p.render(own(2), async () => statement(1))).subarray(0, 5).toString()).toBe('%PDF-');
  });
});

/** A statement of `lines` lines (the first described by `description`), as the statements module would read it. */
function statement(lines: number, description = 'Invoice 1'): { kind: string; model: StatementDocument } {
  // The fields the drawing reads of a customer.
  const customer = {
    id: 1,
    name: 'Ada',
    lastName: 'Lovelace',
    email: 'ada@example.com',
  } as Partial<Customer>;
  const model: StatementDocument = {
    statement: {
      customer: customer as Customer,
      currencyCode: 'ZAR',
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      openingMinor: 0,
      lines: Array.from({ length: lines }, (_, i) => ({
        record: {
          kind: 'invoice',
          id: i + 1,
          date: '2026-01-01',
          description: i === 0 ? description : `Invoice ${i + 1}`,
          dueDate: '2026-01-31',
          amountMinor: 100,
          reference: null,
          taxCreditNote: null,
        },
        balanceMinor: 100 * (i + 1),
      })),
      closingMinor: 100 * lines,
      ageing: {
        currentMinor: 0,
        overdue1To30Minor: 0,
        overdue31To60Minor: 0,
        overdue61To90Minor: 0,
        overdueOver90Minor: 100 * lines,
        totalMinor: 100 * lines,
      },
      unappliedMinor: 0,
      pendingMinor: 0,
    },
    seller: { accountName: 'Northwind', details: SELLER, logo: undefined },
    createdAt: new Date('2027-01-01T00:00:00Z'),
  };
  return { kind: STATEMENT_DOCUMENT, model };
}

const SELLER: StatementDocument['seller']['details'] = {
  legalName: 'Northwind (Pty) Ltd',
  address1: '1 Long Street',
  address2: null,
  city: 'Cape Town',
  postalCode: '8001',
  countryId: 710,
  taxNumber: '4123456789',
  companyNumber: null,
  email: null,
  phone: null,
  paymentInstructions: null,
  senderName: null,
  replyTo: null,
  logo: null,
};
