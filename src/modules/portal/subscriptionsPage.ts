import { inTransaction, today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { DomainError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { packagesByIds } from '../catalogue/index.ts';
import { getInvoice } from '../invoicing/index.ts';
import type { Invoice } from '../invoicing/index.ts';
import {
  cancelSubscription,
  changeSubscriptionTerms,
  getSubscription,
  listCustomerSubscriptions,
  listSubscriptionCoupons,
  previewChange,
  redeemSubscriptionCoupon,
} from '../subscriptions/index.ts';
import { hasPortalCoupons, periodsLeft } from '../coupons/index.ts';
import type { ChangeResult, Subscription } from '../subscriptions/index.ts';
import { invoiceAwaitedBy } from '../subscriptions/index.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import { money, taxLabel, withTax } from './portalViews.ts';
import { periodText, priceText } from './prices.ts';
import { ownedBySession } from './signedInCustomer.ts';
import { cancelReasons, cancelWithReason } from '../retention/index.ts';
import type { CancelReason as ReasonRule } from '../retention/index.ts';
import { renderRetentionOffer } from './retentionPage.ts';
import type { GivenReason } from './retentionPage.ts';
import { countPackageChange, PACKAGE_CHANGES_PER_DAY } from './portalAuth.service.ts';
import { nextInvoiceOfSubscription } from './upcoming.ts';
import { pauseView } from './pausePage.ts';

/** What a customer may add to the reason it cancels for (the reasons are the account's: docs/portal.md). */
export const CANCEL_DETAILS_MAX = 500;

/** The session's customer's subscription, or undefined: another customer's, like one that does not exist, is not found. */
export const subscriptionOfSession = (page: SignedInPage, id: string): Promise<Subscription | undefined> =>
  ownedBySession(page, id, getSubscription, (subscription) => subscription.customerId);

/** Whether the subscription still runs and has no end set: only then may it be cancelled or changed. */
const isRunning = (s: Subscription) =>
  s.status !== 'Cancelled' && s.status !== 'Expired' && s.cancelDate === null && !startsWhenPaid(s);

/** A subscription waiting for its first invoice's payment, or that expired waiting: nothing of it may change. */
const startsWhenPaid = (s: Subscription) => s.status === 'Incomplete' || s.status === 'IncompleteExpired';

/** How the portal names the states of a subscription that starts when paid (docs/subscriptions.md). */
const STARTS_WHEN_PAID_WORDS: Partial<Record<Subscription['status'], string>> = {
  Incomplete: 'Awaiting payment',
  IncompleteExpired: 'Expired unpaid',
};

const nextInvoiceView = (invoice: Invoice | undefined) =>
  invoice
    ? { date: invoice.invoiceDate, amount: withTax(money(invoice.money.totalMinor, invoice.currencyCode)) }
    : null;

async function subscriptionView(ctx: ServiceContext, s: Subscription) {
  return {
    id: s.id,
    packageName: s.packageName,
    // The subscription's price as its terms quote it: the account's tax-inclusiveness says which.
    price: `${priceText(s.chargePrice, s.currencyCode)} ${taxLabel(ctx.account.isTaxInclusive)} ${periodText(s.term, s.termType)}`,
    status: s.status,
    statusClass: s.status.toLowerCase(),
    started: s.startDate,
    trialEnds: s.trialEndDate !== null && s.trialEndDate > today(ctx) ? s.trialEndDate : null,
    next: nextInvoiceView(await nextInvoiceOfSubscription(ctx, s.id)),
    // A cancellation set for a later day ends the subscription there; one in the past made it Cancelled.
    endsOn: s.status !== 'Cancelled' && s.cancelDate !== null ? s.cancelDate : null,
    endedOn: s.status === 'Cancelled' ? s.cancelDate : s.status === 'Expired' ? s.endDate : null,
    changeScheduled: s.isFutureChange,
    // Its first invoice, linked so that paying it starts the subscription.
    awaits: await invoiceAwaitedBy(ctx, s),
    statusText: STARTS_WHEN_PAID_WORDS[s.status] ?? s.status,
  };
}

/** A package and rate term a customer may move to: one of the account's PortalSwitchPackageIDs. */
interface SwitchOption {
  value: string;
  label: string;
  packageId: number;
  packageVersionId: number;
  packageRateTermId: number;
}

/**
 * What the subscription may move to: the default version of each package the account allows, each rate term of it
 * priced in the subscription's currency, except the terms it has now. Inactive packages and versions are left out.
 */
async function switchOptions(ctx: ServiceContext, s: Subscription): Promise<SwitchOption[]> {
  const ids = ctx.account.portalSelfService.switchPackageIds;
  if (ids.length === 0 || !isRunning(s)) return [];
  const packages = await packagesByIds(ctx, ids);
  const options: SwitchOption[] = [];
  for (const id of ids) {
    const pkg = packages.get(id);
    const version = pkg?.versions.find((v) => v.isDefault && v.isActive);
    if (!pkg || !pkg.isActive || !version) continue;
    const rate = version.rates.find((r) => r.currencyCode === s.currencyCode);
    for (const term of rate?.terms ?? []) {
      if (version.id === s.packageVersionId && term.id === s.packageRateTermId) continue;
      options.push({
        value: `${pkg.id}-${version.id}-${term.id}`,
        label: `${pkg.name}: ${priceText(term.chargePrice, s.currencyCode)} ${periodText(term.chargeTerm, term.chargeTermType)}`,
        packageId: pkg.id,
        packageVersionId: version.id,
        packageRateTermId: term.id,
      });
    }
  }
  return options;
}

interface DetailExtras {
  status?: number;
  errors?: FieldProblem[];
  notice?: string;
  fields?: FormFields;
}

const CANCELLED_NOTICE =
  'Your subscription is set to end at the end of its period. You will not be billed after that.';
const CHANGED_NOTICE = 'Your subscription was changed. Any invoice for the change is under Invoices.';
const COUPON_NOTICE = 'Your coupon was applied: it discounts the next invoices of this subscription.';
const PAUSED_NOTICE =
  'Your pause is set: it starts at the end of the period already billed, and nothing is invoiced while it lasts.';
const RESUMED_NOTICE = 'Your subscription is no longer paused. Any invoice for it is under Invoices.';
/** What a subscription's page says after a change made from it (its `done` query). */
export type DoneNotice = 'cancelled' | 'changed' | 'coupon' | 'paused' | 'resumed';

const DONE_NOTICES: Record<DoneNotice, string> = {
  cancelled: CANCELLED_NOTICE,
  changed: CHANGED_NOTICE,
  coupon: COUPON_NOTICE,
  paused: PAUSED_NOTICE,
  resumed: RESUMED_NOTICE,
};

/** What a customer is told when a code is refused, by the refusal's code (docs/credits.md, "Coupons"). */
const COUPON_REFUSALS: Record<string, string> = {
  coupon_expired: 'That coupon has expired',
  coupon_exhausted: 'That coupon has been used up',
  coupon_already_redeemed: 'That coupon is already applied to this subscription',
  coupon_not_applicable: 'That coupon does not apply to this subscription',
  coupon_currency_mismatch: 'That coupon does not apply to this subscription',
};

/** The live coupons of a subscription as its page lists them: code, name and the periods left. */
async function couponViews(ctx: ServiceContext, s: Subscription) {
  const redemptions = await listSubscriptionCoupons(ctx, s.id, { limit: 50, offset: 0 });
  return redemptions
    .filter(
      ({ redemption, coupon }) =>
        redemption.endedAt === null && periodsLeft(coupon, redemption.periodsUsed) !== 0,
    )
    .map(({ redemption, coupon }) => {
      const left = periodsLeft(coupon, redemption.periodsUsed);
      return {
        code: coupon.code,
        name: coupon.name,
        left: left === null ? 'every invoice' : left === 1 ? 'the next invoice' : `the next ${left} invoices`,
      };
    });
}

/** A package change as made now: its credits, its invoices and what it leaves due (negative: a credit). */
interface ChangeOutcome {
  credits: ChangeResult['credits'];
  invoices: Invoice[];
  netMinor: number;
}

async function changeOutcome(
  tctx: ServiceContext,
  change: (c: ServiceContext) => Promise<ChangeResult>,
): Promise<ChangeOutcome> {
  const result = await change(tctx);
  const invoices = [];
  for (const id of result.invoiceIds) invoices.push(await getInvoice(tctx, id));
  const creditMinor = result.credits.reduce((sum, c) => sum + c.totalMinor, 0);
  const chargeMinor = invoices.reduce((sum, i) => sum + i.money.totalMinor, 0);
  return { credits: result.credits, invoices, netMinor: chargeMinor - creditMinor };
}

/** Thrown to roll a confirmed change back when it no longer comes to the amount its preview showed. */
class PreviewMoved extends Error {
  constructor(readonly outcome: ChangeOutcome) {
    super('the change no longer comes to the previewed amount');
  }
}

/**
 * Applies a confirmed change only when it comes to the net amount the customer saw (`expected`, in minor units):
 * proration counts days, so a preview from yesterday is not today's change. Made in one transaction and rolled
 * back on a difference, so nothing is changed unless the amounts agree.
 */
async function changeAsPreviewed(
  ctx: ServiceContext,
  change: (c: ServiceContext) => Promise<ChangeResult>,
  expected: string,
): Promise<{ kind: 'changed' } | { kind: 'moved'; outcome: ChangeOutcome }> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      const outcome = await changeOutcome(inTransaction(ctx, trx), change);
      if (String(outcome.netMinor) !== expected) throw new PreviewMoved(outcome);
    });
  } catch (error) {
    if (error instanceof PreviewMoved) return { kind: 'moved', outcome: error.outcome };
    throw error;
  }
  return { kind: 'changed' };
}

/** The confirmation of a change: what is credited and charged today; 422 with `errors` when the amounts moved. */
function renderChangePreview(
  page: SignedInPage,
  subscription: Subscription,
  chosen: SwitchOption,
  outcome: ChangeOutcome,
  errors: FieldProblem[] = [],
) {
  const currency = subscription.currencyCode;
  const creditMinor = outcome.credits.reduce((sum, c) => sum + c.totalMinor, 0);
  const chargeMinor = outcome.invoices.reduce((sum, i) => sum + i.money.totalMinor, 0);
  return page.render(errors.length ? 422 : 200, 'subscriptionChange', {
    title: `Change ${subscription.packageName}`,
    current: 'subscriptions',
    subscription: { id: subscription.id, packageName: subscription.packageName },
    choice: chosen.value,
    choiceLabel: chosen.label,
    credits: outcome.credits.map((c) => ({
      description: c.descrip,
      amount: money(c.totalMinor, currency),
    })),
    charges: outcome.invoices.flatMap((i) =>
      i.charges.map((line) => ({
        description: line.descrip,
        period: line.periodStart && line.periodEnd ? `${line.periodStart} to ${line.periodEnd}` : null,
        amount: money(line.amountExMinor, i.currencyCode),
      })),
    ),
    tax: money(
      outcome.invoices.reduce((sum, i) => sum + i.money.totalMinor - i.exTotalMinor, 0),
      currency,
    ),
    credit: withTax(money(creditMinor, currency)),
    charge: withTax(money(chargeMinor, currency)),
    net: withTax(money(Math.abs(outcome.netMinor), currency)),
    netIsCredit: outcome.netMinor < 0,
    expected: String(outcome.netMinor),
    errors,
    errorsTitle: errors.length ? 'Nothing was changed' : undefined,
    csrf: page.session.csrfToken,
  });
}

/** The link under a refusal that leaves the subscription as it was. */
const backToSubscription = (page: SignedInPage, s: Subscription) => ({
  href: `${page.portal.base}subscriptions/${s.id}`,
  text: 'Back to the subscription',
});

/** Why the customer cancels, as the form sent it: one of the account's reasons, and what it added in one line. */
interface CancelReason {
  reason: string;
  details: string;
}

const cancelReasonOf = (fields: FormFields): CancelReason => ({
  reason: fields['reason'] ?? '',
  details: (fields['details'] ?? '').replace(/\s+/g, ' ').trim(),
});

function cancelProblems({ reason, details }: CancelReason, reasons: ReasonRule[]): FieldProblem[] {
  const errors: FieldProblem[] = [];
  if (!reasons.some((r) => r.code === reason))
    errors.push({ field: 'reason', message: 'Choose why you are cancelling' });
  if (details.length > CANCEL_DETAILS_MAX) {
    errors.push({ field: 'details', message: `Tell us more in at most ${CANCEL_DETAILS_MAX} characters` });
  }
  if (details.includes('\u0000')) errors.push({ field: 'details', message: 'Remove the NUL characters' });
  return errors;
}

/** The confirmation says the very day the cancellation would end the service: it is made and rolled back. */
async function renderCancelConfirm(
  page: SignedInPage,
  subscription: Subscription,
  { reason, reasonLabel, details }: GivenReason,
) {
  const endsOn = await previewChange(page.portal.ctx, async (tctx) => {
    await cancelSubscription(tctx, subscription.id, 'renewal');
    return (await getSubscription(tctx, subscription.id)).cancelDate;
  });
  return page.render(200, 'subscriptionCancel', {
    title: `Cancel ${subscription.packageName}`,
    current: 'subscriptions',
    subscription: { id: subscription.id, packageName: subscription.packageName },
    endsOn,
    reason,
    reasonLabel,
    details,
    csrf: page.session.csrfToken,
  });
}

/** A subscription's page, with the refusal, the problems or the notice of what was just sent from it. */
export async function subscriptionDetailPage(page: SignedInPage, s: Subscription, extras: DetailExtras = {}) {
  const ctx = page.portal.ctx;
  const errors = extras.errors ?? [];
  return page.render(extras.status ?? 200, 'subscription', {
    title: s.packageName,
    current: 'subscriptions',
    subscription: await subscriptionView(ctx, s),
    csrf: page.session.csrfToken,
    canCancel: ctx.account.portalSelfService.allowCancel && isRunning(s),
    reasons: (await cancelReasons(ctx)).map(({ code, label }) => ({ value: code, label })),
    detailsMax: CANCEL_DETAILS_MAX,
    options: (await switchOptions(ctx, s)).map(({ value, label }) => ({ value, label })),
    coupons: await couponViews(ctx, s),
    canRedeem: isRunning(s) && (await hasPortalCoupons(ctx)),
    ...(await pauseView(ctx, s)),
    errors,
    invalidFields: errors.map((e) => e.field),
    notice: extras.notice,
    fields: extras.fields ?? {},
  });
}

/** The session's customer's subscriptions: running ones first, then those that ended; the newest start first within each. */
export async function subscriptionsPage(page: SignedInPage) {
  const ctx = page.portal.ctx;
  const all = await listCustomerSubscriptions(ctx, page.session.customerId, { limit: 200, offset: 0 });
  const ended = (s: Subscription) => s.status === 'Cancelled' || s.status === 'Expired';
  const ordered = [...all].sort(
    (a, b) => Number(ended(a)) - Number(ended(b)) || b.startDate.localeCompare(a.startDate) || b.id - a.id,
  );
  const views = [];
  for (const s of ordered) views.push(await subscriptionView(ctx, s));
  return page.render(200, 'subscriptions', {
    title: 'Subscriptions',
    current: 'subscriptions',
    subscriptions: views,
  });
}

/** One of the session's subscriptions (not found when it is another's), with the notice of what was just done. */
export async function subscriptionPage(page: SignedInPage, id: string, done: DoneNotice | undefined) {
  const subscription = await subscriptionOfSession(page, id);
  if (!subscription) return page.notFound();
  return subscriptionDetailPage(page, subscription, {
    notice: done === undefined ? undefined : DONE_NOTICES[done],
  });
}

/**
 * Cancelling at period end: refused when the account takes no cancellations or the subscription is already ending;
 * the account's reasons, then the offer its rules make for one (docs/portal.md, "Cancel with a way to stay") or the
 * confirmation, then the cancellation.
 */
export async function cancelSubscriptionPage(
  page: SignedInPage,
  subscription: Subscription,
  fields: FormFields,
) {
  const ctx = page.portal.ctx;
  if (!ctx.account.portalSelfService.allowCancel) {
    return page.message(403, {
      title: 'Not available',
      heading: 'Subscriptions cannot be cancelled here',
      message: `${page.portal.account.name} does not take cancellations in the portal. Contact them to cancel. Nothing was changed.`,
      link: backToSubscription(page, subscription),
    });
  }
  if (!isRunning(subscription)) {
    return page.message(409, {
      title: 'Already ending',
      heading: 'This subscription is already ending',
      message: 'It has ended or is set to end; nothing was changed.',
      link: backToSubscription(page, subscription),
    });
  }
  const reasons = await cancelReasons(ctx);
  const reason = cancelReasonOf(fields);
  const errors = cancelProblems(reason, reasons);
  if (errors.length) return subscriptionDetailPage(page, subscription, { status: 422, errors, fields });
  const given = { ...reason, reasonLabel: reasons.find((r) => r.code === reason.reason)!.label };
  if (fields['confirm'] !== 'yes') {
    const offered = await renderRetentionOffer(page, subscription, given);
    return offered ?? renderCancelConfirm(page, subscription, given);
  }
  const declined = fields['declined'];
  await cancelWithReason(ctx, subscription, { ...given, ...(declined ? { declinedKey: declined } : {}) });
  return page.redirect(`subscriptions/${subscription.id}?done=cancelled`);
}

/** Applying a coupon the account offers in the portal (PortalRedeemable); any other code is unknown. */
export async function redeemCouponPage(page: SignedInPage, subscription: Subscription, fields: FormFields) {
  if (!isRunning(subscription)) {
    return page.message(409, {
      title: 'Not available',
      heading: 'This subscription is ending',
      message: 'A coupon cannot be applied to a subscription that has ended or is set to end.',
      link: backToSubscription(page, subscription),
    });
  }
  try {
    await redeemSubscriptionCoupon(page.portal.ctx, subscription.id, fields['code'] ?? '', {
      fromPortal: true,
    });
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind === 'not_found') throw error;
    const message = COUPON_REFUSALS[error.code] ?? 'That coupon code is not valid';
    return subscriptionDetailPage(page, subscription, {
      status: 422,
      errors: [{ field: 'code', message }],
      fields,
    });
  }
  return page.redirect(`subscriptions/${subscription.id}?done=coupon`);
}

/**
 * Changing package: only a package and term the account allows, as offered on the page, is ever applied. Without
 * `confirm` the change is previewed (made and rolled back, as PUT .../changePackage?preview=true does); confirmed,
 * it counts against the day's changes and is applied only when it still comes to the amount previewed.
 */
export async function changeSubscriptionPage(
  page: SignedInPage,
  subscription: Subscription,
  fields: FormFields,
) {
  const ctx = page.portal.ctx;
  const options = await switchOptions(ctx, subscription);
  if (options.length === 0) {
    return page.message(403, {
      title: 'Not available',
      heading: 'This subscription cannot be changed here',
      message: `${page.portal.account.name} offers no changes to it in the portal. Nothing was changed.`,
      link: backToSubscription(page, subscription),
    });
  }
  const chosen = options.find((o) => o.value === fields['choice']);
  if (!chosen) {
    return subscriptionDetailPage(page, subscription, {
      status: 422,
      errors: [{ field: 'choice', message: 'Choose one of the packages offered' }],
      fields,
    });
  }
  const change = (c: ServiceContext) =>
    changeSubscriptionTerms(c, subscription.id, {
      packageId: chosen.packageId,
      packageVersionId: chosen.packageVersionId,
      packageRateTermId: chosen.packageRateTermId,
      atRenewal: false,
    });
  if (fields['confirm'] !== 'yes') {
    const outcome = await previewChange(ctx, (tctx) => changeOutcome(tctx, change));
    return renderChangePreview(page, subscription, chosen, outcome);
  }
  return confirmChange(page, subscription, chosen, change, fields['expected'] ?? '');
}

/** A confirmed change, within the day's count of changes, applied when it still comes to `expected`. */
async function confirmChange(
  page: SignedInPage,
  subscription: Subscription,
  chosen: SwitchOption,
  change: (c: ServiceContext) => Promise<ChangeResult>,
  expected: string,
) {
  const ctx = page.portal.ctx;
  const counted = await countPackageChange(ctx, page.session);
  if (counted.kind === 'too_many_changes') {
    return page.message(429, {
      title: 'Too many changes',
      heading: 'Try again tomorrow',
      message: `Subscriptions can be changed here at most ${PACKAGE_CHANGES_PER_DAY} times a day. Nothing was changed; ask ${page.portal.account.name} if you need another change today.`,
      link: backToSubscription(page, subscription),
    });
  }
  let applied: Awaited<ReturnType<typeof changeAsPreviewed>> | undefined;
  try {
    applied = await changeAsPreviewed(ctx, change, expected);
  } finally {
    if (applied?.kind !== 'changed') await counted.forget();
  }
  if (applied.kind === 'moved') {
    return renderChangePreview(page, subscription, chosen, applied.outcome, [
      {
        field: 'confirm',
        message:
          'The amounts changed since you looked (a new day began). Check them again before you confirm.',
      },
    ]);
  }
  return page.redirect(`subscriptions/${subscription.id}?done=changed`);
}
