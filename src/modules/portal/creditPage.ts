import type { Account, ServiceContext } from '../../context.ts';
import { localDateText, localDateTimeText } from '../../core/calendar.ts';
import type { FieldProblem } from '../../errors.ts';
import { componentsByIds, metricsByCodes } from '../catalogue/index.ts';
import { getWallet, listEntries, listGrants, listWallets } from '../credits/index.ts';
import type { CreditEntry, GrantView, WalletView } from '../credits/index.ts';
import { getCustomer } from '../customers/index.ts';
import { capturesCards, findPrimaryGateway } from '../gateways/index.ts';
import { invoicesByIds } from '../invoicing/index.ts';
import { primaryPaymentMethodsOf, unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';
import {
  buyCredit,
  topUpAmountOf,
  topUpFormKey,
  topUpBounds,
  topUpOfForm,
} from './creditPurchase.service.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import { countTopUp, TOP_UPS_PER_DAY } from './portalAuth.service.ts';
import { invoiceName, money, pageNumber, payAttempt } from './portalViews.ts';
import { ownedBySession } from './signedInCustomer.ts';

/** Journal entries on one page of a wallet's history, newest first. */
const ENTRIES_PER_PAGE = 25;
/** More grants than a wallet's page lists: the rest are read through the API. */
const GRANTS_SHOWN = 200;
const WALLETS_SHOWN = 50;

/** A grant's state as a customer reads it (docs/credits.md, "Grants"). */
const GRANT_STATUS: Record<GrantView['status'], string> = {
  active: 'Available',
  used: 'Used up',
  expired: 'Expired',
  voided: 'Withdrawn',
};

/** The session's customer's wallet, or undefined: another customer's, like one that does not exist, is not found. */
const walletOfSession = (page: SignedInPage, id: string): Promise<WalletView | undefined> =>
  ownedBySession(page, id, getWallet, (wallet) => wallet.customerId);

const walletName = (wallet: WalletView) => wallet.name ?? `Prepaid credit in ${wallet.currencyCode}`;

function walletFigures(wallet: WalletView) {
  const currency = wallet.currencyCode;
  return {
    id: wallet.id,
    name: walletName(wallet),
    currencyCode: currency,
    balance: money(wallet.balanceMinor, currency),
    paid: money(wallet.paidBalanceMinor, currency),
    granted: money(wallet.grantedBalanceMinor, currency),
  };
}

/**
 * "Any charge", or the metrics and components a grant is kept for, by their names (docs/credits.md, "Grants",
 * AppliesTo).
 */
function restrictionText(grant: GrantView, names: RestrictionNames): string {
  if (grant.metricCodes === null && grant.componentIds === null) return 'Any charge';
  const named = [
    ...(grant.metricCodes ?? []).map((code) => names.metrics.get(code) ?? code),
    ...(grant.componentIds ?? []).map((id) => names.components.get(id) ?? `component ${id}`),
  ];
  return `Only charges for ${named.join(', ')}`;
}

interface RestrictionNames {
  metrics: Map<string, string>;
  components: Map<number, string>;
}

async function restrictionNames(
  ctx: ServiceContext,
  grants: readonly GrantView[],
): Promise<RestrictionNames> {
  const metrics = await metricsByCodes(
    ctx.db,
    ctx.account.id,
    grants.flatMap((grant) => grant.metricCodes ?? []),
  );
  const components = await componentsByIds(ctx, [
    ...new Set(grants.flatMap((grant) => grant.componentIds ?? [])),
  ]);
  return {
    metrics: new Map([...metrics].map(([code, metric]) => [code, metric.name])),
    components: new Map([...components].map(([id, component]) => [id, component.name])),
  };
}

async function grantViews(ctx: ServiceContext, wallet: WalletView, grants: readonly GrantView[]) {
  const names = await restrictionNames(ctx, grants);
  const currency = wallet.currencyCode;
  const zone = ctx.account.timeZone;
  return [...grants]
    .sort((a, b) => b.id - a.id)
    .map((grant) => ({
      what: grant.kind === 'paid' ? 'Bought' : 'Granted',
      note: grant.note,
      amount: money(grant.amountMinor, currency),
      remaining: money(grant.remainingMinor, currency),
      expires: grant.expiresAt === null ? 'Never' : localDateTimeText(grant.expiresAt, zone),
      restriction: restrictionText(grant, names),
      status: GRANT_STATUS[grant.status],
      statusClass: grant.status,
    }));
}

/** Whether an entry adds to the grant's credit or takes from it (docs/credits.md, "Wallets": the journal). */
const ADDS: Record<CreditEntry['kind'], boolean> = {
  grant: true,
  release: true,
  consume: false,
  expire: false,
  void: false,
  refund: false,
  refund_undone: true,
};

/** One journal entry in words: the invoice it paid or the reason it moved, never an internal id. */
function entryText(
  entry: CreditEntry,
  grant: GrantView | undefined,
  invoiceNames: Map<number, string>,
): { text: string; invoiceId: number | null } {
  const onInvoice = (id: number | null) => (id === null ? null : (invoiceNames.get(id) ?? null));
  const note = grant?.note ? `: ${grant.note}` : '';
  switch (entry.kind) {
    case 'grant': {
      const topUp = onInvoice(grant?.topUpInvoiceId ?? null);
      return topUp !== null
        ? { text: `Bought with invoice ${topUp}`, invoiceId: grant!.topUpInvoiceId }
        : { text: `Credit granted${note}`, invoiceId: null };
    }
    case 'consume':
      return { text: `Paid invoice ${onInvoice(entry.invoiceId) ?? ''}`.trim(), invoiceId: entry.invoiceId };
    case 'release':
      return {
        text: `Given back from invoice ${onInvoice(entry.invoiceId) ?? ''} (cancelled or credited)`,
        invoiceId: entry.invoiceId,
      };
    case 'expire':
      return { text: `Expired unused${note}`, invoiceId: null };
    case 'void': {
      const topUp = onInvoice(grant?.topUpInvoiceId ?? null);
      return topUp !== null
        ? {
            text: `Withdrawn: the payment of invoice ${topUp} was reversed`,
            invoiceId: grant!.topUpInvoiceId,
          }
        : { text: `Withdrawn${note}`, invoiceId: null };
    }
    // A refund names the top-up invoice whose money went back (docs/credits.md, "Crediting a top-up").
    case 'refund':
      return {
        text: `Refunded to you: credit bought with invoice ${onInvoice(entry.invoiceId) ?? ''}`.trim(),
        invoiceId: entry.invoiceId,
      };
    case 'refund_undone':
      return {
        text: `Refund cancelled: credit of invoice ${onInvoice(entry.invoiceId) ?? ''} back`.trim(),
        invoiceId: entry.invoiceId,
      };
  }
}

async function historyViews(
  page: SignedInPage,
  wallet: WalletView,
  entries: readonly CreditEntry[],
  grants: readonly GrantView[],
) {
  const ctx = page.portal.ctx;
  const grantsById = new Map(grants.map((grant) => [grant.id, grant]));
  const invoiceIds = [
    ...entries.map((entry) => entry.invoiceId),
    ...grants.map((grant) => grant.topUpInvoiceId),
  ].filter((id): id is number => id !== null);
  const invoices = await invoicesByIds(ctx, [...new Set(invoiceIds)]);
  const invoiceNames = new Map(
    [...invoices]
      // Only the customer's own invoices, by their numbers (docs/portal.md, "What the portal shows").
      .filter(([, invoice]) => invoice.customer.id === page.session.customerId)
      .map(([id, invoice]) => [id, invoiceName(invoice)]),
  );
  return entries.map((entry) => {
    const { text, invoiceId } = entryText(entry, grantsById.get(entry.grantId), invoiceNames);
    const sign = ADDS[entry.kind] ? '+' : '−';
    return {
      date: localDateText(entry.createdAt, ctx.account.timeZone),
      text,
      href:
        invoiceId !== null && invoiceNames.has(invoiceId) ? `${page.portal.base}invoices/${invoiceId}` : null,
      amount: `${sign}${money(entry.amountMinor, wallet.currencyCode)}`,
      kindClass: ADDS[entry.kind] ? 'credit-in' : 'credit-out',
    };
  });
}

interface WalletPageExtras {
  status?: number;
  errors?: FieldProblem[];
  fields?: FormFields;
}

/**
 * Whether the customer may buy credit for this wallet here: the account allows it (PortalAllowTopUps) and the
 * wallet is in the customer's currency, the only one the portal charges in (docs/portal.md, "Paying").
 */
async function canBuy(page: SignedInPage, wallet: WalletView): Promise<boolean> {
  const ctx = page.portal.ctx;
  if (!ctx.account.portalSelfService.allowTopUps) return false;
  const customer = await getCustomer(ctx, page.session.customerId);
  return wallet.currencyCode === customer.currencyCode;
}

/** The Buy credit form's figures: a fresh attempt token and the bounds in words. */
function buyForm(account: Account, currency: string) {
  const bounds = topUpBounds(account, currency);
  return {
    attempt: payAttempt(),
    min: money(bounds.minMinor, currency),
    max: money(bounds.maxMinor, currency),
  };
}

async function renderWallet(
  page: SignedInPage,
  wallet: WalletView,
  pageNo: number,
  extras: WalletPageExtras = {},
) {
  const ctx = page.portal.ctx;
  const grants = await listGrants(ctx, wallet.id, { limit: GRANTS_SHOWN, offset: 0 });
  // One more than a page: whether an older page exists.
  const entries = await listEntries(
    ctx,
    wallet.id,
    { limit: ENTRIES_PER_PAGE + 1, offset: (pageNo - 1) * ENTRIES_PER_PAGE },
    'newest',
  );
  const link = (n: number) => `${page.portal.base}credit/${wallet.id}${n === 1 ? '' : `?page=${n}`}`;
  const errors = extras.errors ?? [];
  const currency = wallet.currencyCode;
  return page.render(extras.status ?? 200, 'wallet', {
    title: walletName(wallet),
    current: 'credit',
    wallet: walletFigures(wallet),
    grants: await grantViews(ctx, wallet, grants),
    history: await historyViews(page, wallet, entries.slice(0, ENTRIES_PER_PAGE), grants),
    previous: pageNo > 1 ? link(pageNo - 1) : undefined,
    next: entries.length > ENTRIES_PER_PAGE ? link(pageNo + 1) : undefined,
    buy: (await canBuy(page, wallet)) ? buyForm(ctx.account, currency) : undefined,
    csrf: page.session.csrfToken,
    errors,
    errorsTitle: errors.length ? 'No credit was bought' : undefined,
    invalidFields: errors.map((e) => e.field),
    fields: extras.fields ?? {},
  });
}

/**
 * Where a bought top-up's invoice is paid: its page, whose Pay button charges the primary card, when the customer
 * has a valid card as primary; else the page that pays it with a new card through the gateway's fields, when the
 * account's primary gateway takes cards; else its page, which says how it may be paid.
 */
async function payPathOf(page: SignedInPage, invoiceId: number): Promise<string> {
  const ctx = page.portal.ctx;
  const primary = (await primaryPaymentMethodsOf(ctx, [page.session.customerId])).get(
    page.session.customerId,
  );
  const method =
    primary &&
    (await unopenedPaymentMethodsByIds(ctx, [primary.paymentMethodId])).get(primary.paymentMethodId);
  if (method?.creditCard && method.isValid) return `invoices/${invoiceId}`;
  const gateway = await findPrimaryGateway(ctx);
  return gateway && capturesCards(gateway) ? `invoices/${invoiceId}/pay-card` : `invoices/${invoiceId}`;
}

/** The customer's wallets; one wallet, the usual case, is its own page. */
export async function creditPage(page: SignedInPage) {
  const wallets = await listWallets(page.portal.ctx, page.session.customerId, {
    limit: WALLETS_SHOWN,
    offset: 0,
  });
  if (wallets.length === 1) return page.redirect(`credit/${wallets[0]!.id}`);
  return page.render(200, 'credit', {
    title: 'Prepaid credit',
    current: 'credit',
    wallets: wallets.map(walletFigures),
  });
}

/** One of the session's wallets, with its grants and a page of its history. */
export async function walletPage(page: SignedInPage, id: string, pageOfHistory: string | undefined) {
  const wallet = await walletOfSession(page, id);
  if (!wallet) return page.notFound();
  return renderWallet(page, wallet, pageNumber(pageOfHistory));
}

/**
 * Buying credit for one of the session's wallets, within the account's bounds and the day's count of purchases: an
 * invoice for it, which the customer then pays. The same form sent again goes to the invoice it made, uncounted.
 */
export async function buyCreditPage(page: SignedInPage, id: string, fields: FormFields) {
  const wallet = await walletOfSession(page, id);
  if (!wallet) return page.notFound();
  const back = { href: `${page.portal.base}credit/${wallet.id}`, text: 'Back to your credit' };
  if (!(await canBuy(page, wallet))) {
    return page.message(403, {
      title: 'Not available',
      heading: 'Credit cannot be bought here',
      message: `${page.portal.account.name} does not sell this credit in the portal. Contact them to buy credit. Nothing was changed.`,
      link: back,
    });
  }
  const currency = wallet.currencyCode;
  const bounds = topUpBounds(page.portal.ctx.account, currency);
  const amount = topUpAmountOf(fields['amount'] ?? '', currency, bounds, (minor) => money(minor, currency));
  if ('problem' in amount)
    return renderWallet(page, wallet, 1, { status: 422, errors: [amount.problem], fields });
  const formKey = topUpFormKey(page.session.csrfToken, wallet.id, amount.minor, fields['attempt'] ?? '');
  const earlier = await topUpOfForm(page.portal.ctx, formKey);
  if (earlier) return page.redirect(await payPathOf(page, earlier.invoiceId));
  const counted = await countTopUp(page.portal.ctx, page.session);
  if (counted.kind === 'too_many_top_ups') {
    return page.message(429, {
      title: 'Too many purchases',
      heading: 'Try again tomorrow',
      message: `Credit can be bought here at most ${TOP_UPS_PER_DAY} times a day. Nothing was bought; pay the invoices already made for it, or ask ${page.portal.account.name}.`,
      link: back,
    });
  }
  let bought: Awaited<ReturnType<typeof buyCredit>> | undefined;
  try {
    bought = await buyCredit(page.portal.ctx, {
      customerId: page.session.customerId,
      contactId: page.session.contactId,
      walletId: wallet.id,
      currencyCode: currency,
      amountMinor: amount.minor,
      formKey,
    });
  } finally {
    // A send that found its twin's invoice, or failed, bought nothing.
    if (!bought?.made) await counted.forget();
  }
  return page.redirect(await payPathOf(page, bought.invoiceId));
}
