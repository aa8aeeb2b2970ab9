import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import type { TestAccount } from '../helpers/service.ts';
import { t } from './fixtures.ts';
import {
  createCredit,
  createInvoice,
  creditBody,
  postCredit,
  useCreditNotesService,
} from './creditNotes.fixtures.ts';

// A credit note created without CreditNumber takes the next number of its account's sequence, `CN-0001`,
// `CN-0002`, ...: consecutive, never twice, under concurrent creations too (docs/spec-decisions.md, "Credit
// notes"). A CreditNumber given is kept as given.

useCreditNotesService();

/** A credit body without CreditNumber. */
function unnumbered(customerID: number, body: Record<string, unknown> = {}): Record<string, unknown> {
  const { CreditNumber: _left, ...rest } = creditBody(customerID, { Allocations: [], ...body });
  return rest;
}

async function storedNumbers(as: TestAccount): Promise<string[]> {
  const rows = await t.service.storage.db
    .selectFrom('credit_notes')
    .select('credit_number')
    .where('account_id', '=', as.accountId)
    .orderBy('credit_number')
    .execute();
  return rows.map((row) => row.credit_number);
}

const sequence = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => `CN-${String(from + i).padStart(4, '0')}`);

describe('a credit note without CreditNumber', () => {
  it('20 created at once, for four customers, get CN-0001 to CN-0020: no gap, none twice', async () => {
    const as = await t.newAccount('Concurrent numbering');
    const customers = await Promise.all([1, 2, 3, 4].map(() => createCustomer(as)));
    const invoices = await Promise.all(customers.map((customerID) => createInvoice(customerID, 500, {}, as)));
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        const k = i % customers.length;
        // Half allocate to their customer's invoice, so the numbering waits on allocations too.
        const allocations = i % 2 === 0 ? [{ invoiceID: invoices[k].invoiceID, amountApplied: 10 }] : [];
        return postCredit(unnumbered(customers[k]!, { Amount: 10, Allocations: allocations }), as);
      }),
    );
    for (const res of results) expect(res.status, res.text).toBe(201);
    const answered = results.map((res) => res.body.CreditNumber as string).sort();
    expect(answered).toEqual(sequence(1, 20));
    expect(await storedNumbers(as)).toEqual(sequence(1, 20));
    // Read back, each credit note shows the number it was created with.
    for (const res of results) {
      const read = await ok(as, 'GET', `/v1/credits/${res.body.creditNoteID}`);
      expect(read.CreditNumber).toBe(res.body.CreditNumber);
    }
  });

  it('keeps a CreditNumber given, passes over one given by hand, and takes no number when refused', async () => {
    const as = await t.newAccount('Mixed numbering');
    const customerID = await createCustomer(as);
    const first = await createCredit(unnumbered(customerID), as);
    expect(first.CreditNumber).toBe('CN-0001');
    // Given by hand: kept exactly, and the sequence does not move.
    const byHand = await createCredit(
      creditBody(customerID, { CreditNumber: 'CN-0003', Allocations: [] }),
      as,
    );
    expect(byHand.CreditNumber).toBe('CN-0003');
    const free = await createCredit(
      creditBody(customerID, { CreditNumber: 'Goodwill 7', Allocations: [] }),
      as,
    );
    expect(free.CreditNumber).toBe('Goodwill 7');
    // Refused (422): no number is used up.
    const refused = await postCredit(unnumbered(customerID, { Amount: -5 }), as);
    expect(refused.status, refused.text).toBe(422);
    expect((await createCredit(unnumbered(customerID), as)).CreditNumber).toBe('CN-0002');
    // CN-0003 is held by the credit note given it by hand: the next one is CN-0004.
    expect((await createCredit(unnumbered(customerID), as)).CreditNumber).toBe('CN-0004');
    expect(await storedNumbers(as)).toEqual(['CN-0001', 'CN-0002', 'CN-0003', 'CN-0004', 'Goodwill 7']);

    // Each account has its own sequence.
    const other = await t.newAccount('Other numbering');
    const theirs = await createCustomer(other);
    expect((await createCredit(unnumbered(theirs), other)).CreditNumber).toBe('CN-0001');
  });

  it('an edit without CreditNumber keeps the credit note’s own; one with it changes it', async () => {
    const as = await t.newAccount('Edit numbering');
    const customerID = await createCustomer(as);
    const created = await createCredit(unnumbered(customerID), as);
    expect(created.CreditNumber).toBe('CN-0001');
    const edit = { customerID, Date: '2026-03-05', CurrencyCode: 'USD', Amount: 25, Allocations: [] };
    await ok(as, 'PUT', `/v1/credits/${created.creditNoteID}`, edit);
    expect(await ok(as, 'GET', `/v1/credits/${created.creditNoteID}`)).toMatchObject({
      Amount: 25,
      CreditNumber: 'CN-0001',
    });
    await ok(as, 'PUT', `/v1/credits/${created.creditNoteID}`, { ...edit, CreditNumber: 'R-1' });
    expect((await ok(as, 'GET', `/v1/credits/${created.creditNoteID}`)).CreditNumber).toBe('R-1');
    // The sequence went on: the next one is CN-0002, not CN-0001 again.
    expect((await createCredit(unnumbered(customerID), as)).CreditNumber).toBe('CN-0002');
  });
});
