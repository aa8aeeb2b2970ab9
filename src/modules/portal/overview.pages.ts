import type { App } from '../../http/types.ts';
import { listWallets } from '../credits/index.ts';
import { getCustomer } from '../customers/index.ts';
import { customerWithFigures } from '../../readModels/customers.view.ts';
import { issuedInvoicesOf, newestFirst, overdueInvoices } from './signedInCustomer.ts';
import type { PortalRequests } from './portalHttp.ts';
import { invoiceRowsOf, money, payAttempt, withTax } from './portalViews.ts';
import { SlugParams } from './portal.schemas.ts';
import { nextInvoiceOfCustomer } from './upcoming.ts';

/** The overview: balance, overdue total, the next invoice and the latest ones (docs/portal.md). */
export function registerOverviewRoutes(portal: App, pages: PortalRequests): void {
  portal.get('/portal/:slug', { schema: { hide: true, params: SlugParams } }, async (request, reply) => {
    const page = await pages.signedIn(request, reply, request.params.slug);
    if (!page) return reply;
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
      customer.isCompany && customer.company
        ? customer.company
        : `${customer.name} ${customer.lastName ?? ''}`;
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
  });
}
