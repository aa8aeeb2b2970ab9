import type { ServiceContext } from '../../context.ts';
import { DomainError } from '../../errors.ts';
import type { Coupon } from '../coupons/index.ts';
import { offerFor, recordOfferShown, takeRetentionOffer } from '../retention/index.ts';
import type { OfferToShow } from '../retention/index.ts';
import { cancelSubscription, getSubscription, previewChange } from '../subscriptions/index.ts';
import type { Subscription } from '../subscriptions/index.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import { money, taxLabel } from './portalViews.ts';
import { periodText, priceText } from './prices.ts';
import { ownedBySession } from './signedInCustomer.ts';

/**
 * Cancel with a way to stay (docs/portal.md, "Cancel with a way to stay"): after the customer gives a reason, the
 * first offer the account's rules make for it, with "Take it" and "Cancel anyway" on one page; taking it applies
 * the coupon or the package change and cancels nothing.
 */

/** How long a coupon discounts, in words. */
function couponSpan(coupon: Coupon): string {
  if (coupon.duration === 'forever') return 'every invoice from now on';
  const periods = coupon.duration === 'once' ? 1 : (coupon.durationPeriods ?? 1);
  return periods === 1 ? 'your next invoice' : `your next ${periods} invoices`;
}

/** The offer in words: its heading and what taking it does. */
function offerWords(ctx: ServiceContext, s: Subscription, shown: OfferToShow) {
  if (shown.kind === 'coupon') {
    const { discount } = shown.coupon;
    const off =
      discount.kind === 'percent'
        ? `${discount.percentOff} % off`
        : `${money(discount.amountOffMinor, discount.currencyCode)} off`;
    return {
      heading: `Stay and get ${off}`,
      text: `Keep ${s.packageName} and we take ${off} ${couponSpan(shown.coupon)} (coupon ${shown.coupon.code}). Nothing is cancelled.`,
    };
  }
  if (shown.kind === 'pause') {
    const { pauseDate, resumeDate } = shown.plan;
    return {
      heading: 'Pause instead',
      text: `Keep ${s.packageName} until ${pauseDate}, the end of the period already billed, then pause it until ${resumeDate}. Nothing is invoiced while it is paused, and nothing is cancelled.`,
    };
  }
  const price = `${priceText(shown.chargePrice, s.currencyCode)} ${taxLabel(ctx.account.isTaxInclusive)} ${periodText(shown.chargeTerm, shown.chargeTermType)}`;
  return {
    heading: `Move to ${shown.packageName} instead`,
    text: `Keep your subscription on ${shown.packageName} at ${price}, from your next renewal. Nothing is charged today and nothing is cancelled.`,
  };
}

/** The reason as the cancel form sent it, checked against the account's list by the caller. */
export interface GivenReason {
  reason: string;
  reasonLabel: string;
  details: string;
}

/**
 * The offer page for a reason, when the reason offers something this subscription can take: recorded as shown
 * (retention.offer_shown). Undefined when there is nothing to offer: the caller shows its plain confirmation.
 */
export async function renderRetentionOffer(
  page: SignedInPage,
  subscription: Subscription,
  given: GivenReason,
) {
  const ctx = page.portal.ctx;
  const shown = await offerFor(ctx, subscription, given.reason);
  if (!shown) return undefined;
  // The day the cancellation would end the service, as its confirmation says it: made and rolled back.
  const endsOn = await previewChange(ctx, async (tctx) => {
    await cancelSubscription(tctx, subscription.id, 'renewal');
    return (await getSubscription(tctx, subscription.id)).cancelDate;
  });
  await recordOfferShown(ctx, subscription, given.reason, shown);
  return page.render(200, 'retentionOffer', {
    title: `Cancel ${subscription.packageName}`,
    current: 'subscriptions',
    subscription: { id: subscription.id, packageName: subscription.packageName },
    offer: { key: shown.key, ...offerWords(ctx, subscription, shown) },
    endsOn,
    ...given,
    csrf: page.session.csrfToken,
  });
}

const TAKEN_NOTICE: Record<OfferToShow['kind'], string> = {
  coupon: 'coupon',
  package: 'changed',
  pause: 'paused',
};

/** The offer taken (the form's `reason` and `offer`) on one of the session's subscriptions: nothing is cancelled. */
export async function takeOfferPage(page: SignedInPage, id: string, fields: FormFields) {
  const subscription = await ownedBySession(page, id, getSubscription, (s) => s.customerId);
  if (!subscription) return page.notFound();
  const back = {
    href: `${page.portal.base}subscriptions/${subscription.id}`,
    text: 'Back to the subscription',
  };
  if (!page.portal.ctx.account.portalSelfService.allowCancel) {
    return page.message(403, {
      title: 'Not available',
      heading: 'This offer is not available here',
      message: 'Nothing was changed.',
      link: back,
    });
  }
  let taken: OfferToShow;
  try {
    taken = await takeRetentionOffer(
      page.portal.ctx,
      subscription,
      fields['reason'] ?? '',
      fields['offer'] ?? '',
    );
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind === 'not_found') throw error;
    return page.message(409, {
      title: 'Not available',
      heading: 'That offer is no longer available',
      message: 'Nothing was changed and nothing was cancelled.',
      link: back,
    });
  }
  return page.redirect(`subscriptions/${subscription.id}?done=${TAKEN_NOTICE[taken.kind]}`);
}
