import { listWallets } from '../credits/index.ts';
import { getCustomer } from '../customers/index.ts';
import { customerWithFigures } from '../../readModels/customers.view.ts';
import type { SignedInPage } from './portalHttp.ts';
import { invoiceRowsOf, money, payAttempt, withTax } from './portalViews.ts';
import { issuedInvoicesOf, newestFirst, overdueInvoices } from './signedInCustomer.ts';
import { nextInvoiceOfCustomer } from './upcoming.ts';

/** The overview: balance, overdue total, the next invoice and the latest ones (docs/portal.md). */
export async function overviewPage(page: SignedInPage) {
  const ctx = page.portal.ctx;
  const customer = await customerWithFigures(ctx, await getCustomer(ctx, page.session.customerId));
  const invoices = await issuedInvoicesOf(page);
  const currency = customer.currencyCode;
  const overdueMinor = overdueInvoices(invoices, currency).reduce(
    (sum, i) => sum + i.balances.balanceMinor,
    0,
  );
  const next = await nextInvoiceOfCustomer(ctx, page.session.customerId);
  // The balance of each wallet, when the customer has any (docs/portal.md, "Prepaid credit").
  const wallets = await listWallets(ctx, page.session.customerId, { limit: 50, offset: 0 });
  const name =
    customer.isCompany && customer.company ? customer.company : `${customer.name} ${customer.lastName ?? ''}`;
  return page.render(200, 'dashboard', {
    title: 'Overview',
    current: 'dashboard',
    customerName: name.trim(),
    balance: money(customer.figures.balanceMinor, currency),
    overdue: money(overdueMinor, currency),
    credit: wallets.map((wallet) => ({
      id: wallet.id,
      currencyCode: wallet.currencyCode,
      balance: money(wallet.balanceMinor, wallet.currencyCode),
    })),
    payOverdue: overdueMinor > 0 ? { attempt: payAttempt() } : undefined,
    next: next && {
      amount: withTax(money(next.money.totalMinor, next.currencyCode)),
      date: next.invoiceDate,
    },
    caption: 'Your most recent invoices',
    invoices: await invoiceRowsOf(page.portal.ctx, newestFirst(invoices).slice(0, 5)),
  });
}
