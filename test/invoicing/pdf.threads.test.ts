import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCustomer, ok } from '../helpers/billing.ts';
import { fetchInvoicePdf, payLinkToken } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { fetchStatementPdf, invoice, payment } from '../statements/fixtures.ts';

// PDFs are drawn in worker threads, in turns per account, within caps and a time budget (docs/operations.md,
// "PDF documents").

/** The most lines an invoice PDF holds in this file's service: a long invoice, which takes seconds to draw. */
const MAX_LINES = 600;

const t = useTestService({
  env: {
    PDF_MAX_INVOICE_LINES: String(MAX_LINES),
    PDF_MAX_STATEMENT_LINES: '3',
    PDF_QUEUE_PER_ACCOUNT: '0',
    PDF_READS_PER_CUSTOMER_MINUTE: '3',
  },
});

const charges = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ Descrip: `Line ${i + 1}`, Qty: 1, UnitCostEx: 1 }));

async function longInvoice(as: TestAccount, lines: number): Promise<number> {
  const customer = await createCustomer(as);
  const created = await ok(as, 'POST', '/v1/invoices', {
    customerID: customer,
    Charges: charges(lines),
  });
  return created.invoiceID;
}

/** The PDF's text as poppler lays it out. */
function pdfText(pdf: Buffer): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pdf-threads-')), 'document.pdf');
  fs.writeFileSync(file, pdf);
  try {
    return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
  } finally {
    fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
}

/** Resolves once the service has run a statement that `matches` (it records every one: t.queries). */
async function statementRun(from: number, matches: (sql: string) => boolean): Promise<void> {
  // Each turn of the event loop looks again: waiting for the statement itself, not for a time.
  while (!t.queries.slice(from).some(matches)) await new Promise((resolve) => setImmediate(resolve));
}

describe('PDFs drawn in worker threads', () => {
  it('answers another account’s request while a long invoice is being drawn', async () => {
    const other = await t.newAccount();
    const theirs = await createCustomer(other);
    const invoiceID = await longInvoice(t, MAX_LINES);

    const from = t.queries.length;
    let pdfAnswered = false;
    const pdf = fetchInvoicePdf(t.url, t, invoiceID).then((answer) => {
      pdfAnswered = true;
      return answer;
    });
    // The seller's logo is the last thing read before the invoice is drawn (documentSeller): from here on, the
    // drawing holds the event loop unless a thread does it.
    await statementRun(from, (sql) => sql.includes('account_logos') && sql.includes('updated_at'));
    const read = await other.request('GET', `/v1/customers/${theirs}`);
    expect(read.status).toBe(200);
    expect(pdfAnswered).toBe(false);

    const drawn = await pdf;
    expect(drawn.status).toBe(200);
    const text = pdfText(drawn.body);
    // The same document as drawn on the event loop: every line, once, and the totals.
    for (const line of [1, 2, MAX_LINES / 2, MAX_LINES]) {
      expect(text.match(new RegExp(`Line ${line}\\b`, 'g')), `Line ${line}`).toHaveLength(1);
    }
    expect(text).toMatch(/Total USD\s+600\.00/);
  });

  it('refuses a second PDF of an account whose line is full with 503 documents_busy, and draws another account’s', async () => {
    const other = await t.newAccount();
    const [mine, theirs] = await Promise.all([longInvoice(t, MAX_LINES), longInvoice(other, 1)]);
    const answers = await Promise.all([
      fetchInvoicePdf(t.url, t, mine),
      fetchInvoicePdf(t.url, t, mine),
      fetchInvoicePdf(t.url, other, theirs),
    ]);
    const statuses = answers.slice(0, 2).map((answer) => answer.status);
    expect(statuses.sort()).toEqual([200, 503]);
    const refused = answers.find((answer) => answer.status === 503)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(JSON.parse(refused.body.toString('utf8'))).toMatchObject({ status: 503, code: 'documents_busy' });
    expect(answers[2]!.status).toBe(200);
  });

  it("keeps a share for the staff: a customer's many pay-link PDFs get two at a time and three a minute", async () => {
    const created = await ok(t, 'POST', '/v1/invoices', {
      customerID: await createCustomer(t),
      Charges: charges(MAX_LINES),
      isDraft: false,
    });
    const invoiceId = created.invoiceID as number;
    const link = `${t.url}/pay/${payLinkToken(t, t.accountId, invoiceId)}/invoice.pdf`;
    const from = t.queries.length;
    const customers = Array.from({ length: 6 }, () => fetch(link));
    const staff = fetchInvoicePdf(t.url, t, invoiceId);
    const answers = await Promise.all(customers);
    const codes = await Promise.all(
      answers.map(async (answer) =>
        answer.status === 200 ? 200 : `${answer.status} ${((await answer.json()) as { code: string }).code}`,
      ),
    );
    expect(codes.sort()).toEqual([
      200,
      200,
      '429 too_many_documents',
      '429 too_many_documents',
      '429 too_many_documents',
      '503 documents_busy',
    ]);
    expect(answers.find((answer) => answer.status === 429)!.headers.get('retry-after')).toMatch(/^\d+$/);
    // The staff's own PDF was taken beside them (their line holds one here: PDF_QUEUE_PER_ACCOUNT 0).
    expect((await staff).status).toBe(200);
    // A refused request read nothing of the invoice: its lines were read for the three drawn only.
    const lineReads = t.queries.slice(from).filter((sql) => /^select .* from "?invoice_charges"?/i.test(sql));
    expect(lineReads).toHaveLength(3);
  });

  it('refuses an invoice with more lines than an invoice PDF holds with 422 naming Charges', async () => {
    const invoiceID = await longInvoice(t, MAX_LINES + 1);
    const answer = await fetchInvoicePdf(t.url, t, invoiceID);
    expect(answer.status).toBe(422);
    const problem = JSON.parse(answer.body.toString('utf8'));
    expect(problem).toMatchObject({ code: 'document_too_large' });
    expect(problem.fields).toEqual([
      { field: 'Charges', message: `An invoice PDF holds at most ${MAX_LINES} lines; this invoice has 601` },
    ]);
  });

  it('refuses a statement with more lines than a statement PDF holds with 422 naming startDate', async () => {
    const customer = await createCustomer(t);
    const first = await invoice(t, customer, 100, '2026-01-05', '2026-02-04');
    await payment(t, customer, 40, '2026-01-10', [{ invoiceID: first.invoiceID, amountApplied: 40 }]);
    await payment(t, customer, 30, '2026-01-20', [{ invoiceID: first.invoiceID, amountApplied: 30 }]);
    await payment(t, customer, 20, '2026-02-01', [{ invoiceID: first.invoiceID, amountApplied: 20 }]);

    const over = await fetchStatementPdf(t.url, t, customer, '?startDate=2026-01-01&endDate=2026-02-28');
    expect(over.status).toBe(422);
    const problem = JSON.parse(over.body.toString('utf8'));
    expect(problem).toMatchObject({ code: 'document_too_large' });
    expect(problem.fields.map((f: { field: string }) => f.field)).toEqual(['startDate']);
    expect(problem.fields[0].message).toContain('at most 3 lines; this range holds 4');

    // A range of three lines is drawn.
    const within = await fetchStatementPdf(t.url, t, customer, '?startDate=2026-01-06&endDate=2026-02-28');
    expect(within.status).toBe(200);
    expect(pdfText(within.body)).toContain('Closing balance');
  });
});

describe('the time a PDF may take to draw', () => {
  // A budget no drawing meets.
  const budgeted = useTestService({ env: { PDF_TIMEOUT_MS: '1' } });

  it('answers 503 document_timeout when a drawing overruns its budget, and goes on answering', async () => {
    const customer = await createCustomer(budgeted);
    const created = await ok(budgeted, 'POST', '/v1/invoices', {
      customerID: customer,
      Charges: charges(100),
    });
    for (let attempt = 0; attempt < 2; attempt++) {
      const answer = await fetchInvoicePdf(budgeted.url, budgeted, created.invoiceID);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('1');
      const problem = JSON.parse(answer.body.toString('utf8'));
      expect(problem).toMatchObject({ code: 'document_timeout' });
      expect(problem.detail).toContain('longer than the 1 ms a document may take to draw');
    }
    expect((await budgeted.request('GET', `/v1/customers/${customer}`)).status).toBe(200);
  });
});
