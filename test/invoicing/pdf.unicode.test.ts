import { describe, expect, it } from 'vitest';
import { ok } from '../helpers/billing.ts';
import { fetchInvoicePdf } from '../helpers/invoices.ts';
import { createInvoice, newCustomer, pdfText, t, useInvoiceService } from './invoices.fixtures.ts';
import { renderPdf } from './pdf.fixtures.ts';

useInvoiceService();

/** Names in any script print as themselves: DejaVu Sans for Latin, Greek and Cyrillic, a CJK font for the rest. */
describe('invoice PDF text in any script', () => {
  const names = {
    polish: 'Zażółć Gęślą Jaźń',
    cyrillic: 'Щукин Дмитрий Ёлкин',
    greek: 'Σωκράτης Παπαδόπουλος',
    chinese: '北京数据科技有限公司',
    japanese: '山田太郎 カタカナ ひらがな',
    korean: '김민준 한국어',
  };

  it('reads back Polish, Cyrillic, Greek, Chinese, Japanese and Korean from the PDF, and embeds only subsets', async () => {
    const account = await t.newAccount('Unicode seller');
    await ok(
      account,
      'PUT',
      '/v1/account',
      {
        LegalName: '深圳市示例有限公司 Ελληνική Εταιρεία',
        AddressLine1: 'ул. Тверская 7',
        PaymentInstructions: 'Bank: 中国银行\nIBAN: PL61 1090 1014 0000 0712 1981 2874',
      },
      204,
    );
    const customer = await newCustomer(account, {
      Name: names.polish,
      LastName: names.greek,
      Company: names.chinese,
      Address1: names.cyrillic,
      Address2: names.japanese,
      City: names.korean,
      countryID: 392,
    });
    const invoice = await createInvoice(
      {
        customerID: customer.customerID,
        Charges: [
          { Descrip: 'Συμβουλευτική — 東京都', Qty: 1, UnitCostEx: 100 },
          { Descrip: 'Mixed 中文 and Ελληνικά in one line', Qty: 2, UnitCostEx: 5 },
        ],
        Notes: `Dziękujemy! Спасибо! Ευχαριστώ! 谢谢！ ありがとう! 감사합니다!`,
      },
      account,
    );
    const { status, body: pdf } = await fetchInvoicePdf(t.url, account, invoice.invoiceID);
    expect(status).toBe(200);

    const rendered = renderPdf(pdf, 'unicode');
    const poppler = rendered.text.replace(/[ \t]+/g, ' ');
    const parsed = await pdfText(pdf);
    for (const expected of [
      ...Object.values(names),
      '深圳市示例有限公司 Ελληνική Εταιρεία',
      'ул. Тверская 7',
      'Bank: 中国银行',
      'Japan',
      'Συμβουλευτική — 東京都',
      'Mixed 中文 and Ελληνικά in one line',
      'Dziękujemy! Спасибо! Ευχαριστώ! 谢谢！ ありがとう! 감사합니다!',
    ]) {
      expect(poppler, `pdftotext: ${expected}`).toContain(expected);
      expect(parsed.replace(/[ \t]+/g, ' '), `pdf-parse: ${expected}`).toContain(expected);
    }
    expect(rendered.text).not.toContain('?');
    // Three fonts, each a subset of the glyphs used (pdfkit's "ABCDEF+" prefix), so the file stays small.
    expect(rendered.fonts.map((font) => font.replace(/^[A-Z]{6}\+/, '')).sort()).toEqual([
      'DejaVuSans',
      'DejaVuSans-Bold',
      'WenQuanYiMicroHei',
    ]);
    expect(rendered.fonts.every((font) => /^[A-Z]{6}\+/.test(font))).toBe(true);
    expect(pdf.length).toBeLessThan(150_000);
  });
});
