import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { fieldsOf, other, t } from './fixtures.ts';
import {
  createCredit,
  creditBody,
  customerWithInvoice,
  figures,
  useCreditNotesService,
} from './creditNotes.fixtures.ts';

useCreditNotesService();

describe('GET /v1/credits and /v1/customers/{customerID}/credits', () => {
  it('lists a customer’s credit notes and the account’s, in creation order, page by page', async () => {
    const customerID = await createCustomer(t);
    const otherCustomer = await createCustomer(t);
    const mine = [];
    for (let i = 1; i <= 3; i++) {
      mine.push(await createCredit(creditBody(customerID, { Amount: i, Allocations: [] })));
    }
    const theirs = await createCredit(creditBody(otherCustomer, { Allocations: [] }));

    expect(await ok(t, 'GET', `/v1/customers/${customerID}/credits`)).toEqual(mine);
    expect(await ok(t, 'GET', `/v1/customers/${customerID}/credits?page=2&page_size=2`)).toEqual([mine[2]]);
    expect(await ok(t, 'GET', `/v1/customers/${customerID}/credits?page=3&page_size=2`)).toEqual([]);

    const all = await ok(t, 'GET', '/v1/credits?page_size=200');
    const ids = all.map((c: any) => c.creditNoteID);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids).toEqual(expect.arrayContaining([...mine, theirs].map((c) => c.creditNoteID)));
    const [one] = await ok(t, 'GET', '/v1/credits?page=2&page_size=1');
    expect(one).toEqual(all[1]);
  });

  it.each(['/v1/credits', '/v1/customers/1/credits'])(
    'refuses page_size 0 or 201 and page 0 on %s',
    async (path) => {
      for (const query of ['page_size=0', 'page_size=201', 'page=0', 'page_size=abc']) {
        const res = await t.request('GET', `${path}?${query}`);
        expect(res.status, `${query}: ${res.text}`).toBe(422);
        expect(fieldsOf(res)).toContain(query.split('=')[0]);
      }
    },
  );

  it('is a 404 for an unknown customer, another account’s customer, and an unknown credit note', async () => {
    expect((await t.request('GET', '/v1/customers/987654321/credits')).status).toBe(404);
    const theirs = await createCustomer(other);
    expect((await t.request('GET', `/v1/customers/${theirs}/credits`)).status).toBe(404);
    const res = await t.request('GET', '/v1/credits/987654321');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('credit_note_not_found');
  });
});

describe('tenant isolation', () => {
  it('cannot see, change or delete another account’s credit notes', async () => {
    const { customerID, invoiceID } = await customerWithInvoice();
    const mine = await createCredit(
      creditBody(customerID, { Amount: 10, Allocations: [{ invoiceID, amountApplied: 10 }] }),
    );
    const theirCustomer = await createCustomer(other);
    const path = `/v1/credits/${mine.creditNoteID}`;

    expect((await other.request('GET', path)).status).toBe(404);
    expect(
      (
        await other.request('PUT', path, {
          body: creditBody(theirCustomer, { Amount: 1, CreditNumber: mine.CreditNumber, Allocations: [] }),
        })
      ).status,
    ).toBe(404);
    expect((await other.request('DELETE', path)).status).toBe(404);
    expect((await other.request('GET', `/v1/customers/${customerID}/credits`)).status).toBe(404);
    expect(
      (await ok(other, 'GET', '/v1/credits?page_size=200')).map((c: any) => c.creditNoteID),
    ).not.toContain(mine.creditNoteID);
    expect(await ok(t, 'GET', path)).toEqual(mine);
    expect((await figures(invoiceID)).TotalNegativeAdjs).toBe(10);
  });
});
