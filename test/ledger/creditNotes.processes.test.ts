import { afterAll, describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { api, killAll, startServer } from '../helpers/cli.ts';
import { t } from './fixtures.ts';
import { createInvoice, creditBody, invoice, useCreditNotesService } from './creditNotes.fixtures.ts';

useCreditNotesService();
// The `billing serve` processes the test starts go before the service whose database they share.
afterAll(killAll);

describe('concurrent credit notes from two service processes', () => {
  it('creates, edits and deletes one customer’s credit notes through two processes at once, one at a time', async () => {
    const server = await startServer(t.env);
    const as = await t.newAccount('Two processes');
    const viaChild = (method: string, path: string, body?: unknown) =>
      api(server.url, as, method, path, body).then((r) => ({ ...r, text: JSON.stringify(r.body) }));
    const both = (k: number, method: string, path: string, body?: unknown) =>
      k % 2 === 0
        ? as.request(method, path, body === undefined ? {} : { body })
        : viaChild(method, path, body);
    const customerID = await createCustomer(as);
    const invoiceIDs: number[] = [];
    for (let i = 0; i < 8; i++) {
      invoiceIDs.push(
        (await createInvoice(customerID, 50, { InvoiceDate: `2026-01-0${i + 1}` }, as)).invoiceID,
      );
    }
    const statuses = (responses: { status: number; text: string }[]) =>
      responses.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.text}`);

    // 16 credits of 20.00 with AutoApply: 320.00 over 400.00 of invoices, earliest first.
    const created = await Promise.all(
      Array.from({ length: 16 }, (_, k) =>
        both(k, 'POST', '/v1/credits', creditBody(customerID, { Amount: 20, AutoApply: true })),
      ),
    );
    expect(statuses(created)).toEqual([]);
    const ledger = async () => {
      const invoices = await Promise.all(invoiceIDs.map((id) => invoice(id, as)));
      const credits = await ok(as, 'GET', `/v1/customers/${customerID}/credits?page_size=200`);
      return { invoices, credits };
    };
    let { invoices, credits } = await ledger();
    // 320.00 fills the first six invoices (300.00) and 20.00 of the seventh.
    expect(invoices.map((i: any) => i.TotalNegativeAdjs)).toEqual([50, 50, 50, 50, 50, 50, 20, 0]);
    expect(credits.every((c: any) => c.Status === 'Allocated')).toBe(true);

    // Deletions and edits (which read the credit note before taking the customer's lock), across both.
    const changed = await Promise.all([
      ...created.slice(0, 6).map((r, k) => both(k, 'DELETE', `/v1/credits/${r.body.creditNoteID}`)),
      ...created.slice(6, 12).map((r, k) =>
        both(k, 'PUT', `/v1/credits/${r.body.creditNoteID}`, {
          customerID,
          Date: '2026-03-05',
          CurrencyCode: 'USD',
          Amount: 20,
          CreditNumber: r.body.CreditNumber,
          Allocations: [],
        }),
      ),
    ]);
    expect(statuses(changed)).toEqual([]);
    ({ invoices, credits } = await ledger());
    expect(credits).toHaveLength(10);
    const allocated = credits.flatMap((c: any) => c.Allocations);
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    // 4 credits keep their allocations (80.00); 6 are unallocated (120.00).
    expect(sum(invoices.map((i: any) => i.TotalNegativeAdjs))).toBe(80);
    expect(sum(allocated.map((a: any) => a.amountApplied))).toBe(80);
    for (const inv of invoices) {
      expect(inv.NegativeAdjustmentsApplied.map((a: any) => a.allocationID).sort()).toEqual(
        allocated
          .filter((a: any) => a.invoiceID === inv.invoiceID)
          .map((a: any) => a.allocationID)
          .sort(),
      );
    }
    // 400.00 owed − 80.00 credited − 120.00 unallocated credit.
    expect((await ok(as, 'GET', `/v1/customers/${customerID}`)).Balance).toBe(200);
  });
});
