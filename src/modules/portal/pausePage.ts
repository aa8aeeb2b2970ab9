import { today } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { addDays } from '../../core/calendar.ts';
import { DomainError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import {
  SELF_PAUSE_WINDOW_DAYS,
  getSubscription,
  pauseSubscriptionAsCustomer,
  planSelfPause,
  previewChange,
  resumeSubscription,
  selfPausesInYear,
} from '../subscriptions/index.ts';
import type { SelfPausePlan, Subscription } from '../subscriptions/index.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import { money, withTax } from './portalViews.ts';
import { ownedBySession } from './signedInCustomer.ts';
import { nextInvoiceOfSubscription } from './upcoming.ts';

/**
 * Pausing in the portal (docs/portal.md, "Pausing"): when the account lets its customers (PortalPause), a
 * subscription's page links here; the customer picks a resume day within MaxPauseDays of the pause's start (the end
 * of the period already billed), sees when the pause starts, when it resumes and when the next invoice comes, and
 * confirms. Beyond the account's limits the page says why and pauses nothing. A paused subscription resumes from
 * its page ("Resume now").
 */

/** Paused now, or a pause set for a later day: what "Resume now" ends. */
export const hasOpenPause = (s: Subscription, day: string) =>
  s.pauseDate !== null && (s.resumeDate === null || s.resumeDate > day);

/** Whether the subscription itself could be paused now: it runs, has no end set and no open pause. */
export const isPausable = (s: Subscription, day: string) =>
  s.status !== 'Cancelled' &&
  s.status !== 'Expired' &&
  s.status !== 'Incomplete' &&
  s.status !== 'IncompleteExpired' &&
  s.cancelDate === null &&
  !hasOpenPause(s, day);

/** What the subscription's page says of its pause, and whether it links to the pause form. */
export async function pauseView(ctx: ServiceContext, s: Subscription) {
  const day = today(ctx);
  const open = hasOpenPause(s, day);
  return {
    canPause: ctx.account.portalSelfService.pause.allowed && isPausable(s, day),
    pause: open ? { starts: s.pauseDate, resumes: s.resumeDate, started: s.pauseDate! <= day } : null,
  };
}

const back = (page: SignedInPage, s: Subscription) => ({
  href: `${page.portal.base}subscriptions/${s.id}`,
  text: 'Back to the subscription',
});

/** Why the subscription may not be paused here, as a page; undefined when it may. */
async function refusal(page: SignedInPage, s: Subscription) {
  const ctx = page.portal.ctx;
  const limits = ctx.account.portalSelfService.pause;
  if (!limits.allowed) {
    return page.message(403, {
      title: 'Not available',
      heading: 'Subscriptions cannot be paused here',
      message: `${page.portal.account.name} does not take pauses in the portal. Contact them to pause. Nothing was changed.`,
      link: back(page, s),
    });
  }
  if (!isPausable(s, today(ctx))) {
    return page.message(409, {
      title: 'Not available',
      heading: 'This subscription cannot be paused',
      message: 'It has ended, is set to end, or is paused already. Nothing was changed.',
      link: back(page, s),
    });
  }
  const made = await selfPausesInYear(ctx, s.id);
  if (made >= limits.maxPerYear) {
    const times = limits.maxPerYear === 1 ? 'once' : `${limits.maxPerYear} times`;
    return page.message(409, {
      title: 'Pause limit reached',
      heading: 'This subscription cannot be paused again yet',
      message: `${page.portal.account.name} lets a subscription be paused here at most ${times} in ${SELF_PAUSE_WINDOW_DAYS} days, and this one was paused ${made === 1 ? 'once' : `${made} times`} in that time. Nothing was paused.`,
      link: back(page, s),
    });
  }
  return undefined;
}

/** The form: the pause's start, the latest resume day, and the day chosen (the latest unless sent). */
async function renderForm(
  page: SignedInPage,
  s: Subscription,
  start: string,
  fields: FormFields = {},
  errors: FieldProblem[] = [],
) {
  const maxDays = page.portal.ctx.account.portalSelfService.pause.maxDays;
  const latest = addDays(start, maxDays);
  return page.render(errors.length ? 422 : 200, 'subscriptionPause', {
    title: `Pause ${s.packageName}`,
    current: 'subscriptions',
    subscription: { id: s.id, packageName: s.packageName },
    start,
    earliest: addDays(start, 1),
    latest,
    maxDays,
    resume: fields['resume'] ?? latest,
    errors,
    invalidFields: errors.map((e) => e.field),
    errorsTitle: errors.length ? 'Nothing was paused' : undefined,
    csrf: page.session.csrfToken,
  });
}

/** The confirmation: the pause made and rolled back, so that its days and the next invoice are the real ones. */
async function renderConfirm(page: SignedInPage, s: Subscription, plan: SelfPausePlan) {
  const ctx = page.portal.ctx;
  const next = await previewChange(ctx, async (tctx) => {
    await pauseSubscriptionAsCustomer(tctx, s.id, plan, 'portal');
    return nextInvoiceOfSubscription(tctx, s.id);
  });
  return page.render(200, 'subscriptionPauseConfirm', {
    title: `Pause ${s.packageName}`,
    current: 'subscriptions',
    subscription: { id: s.id, packageName: s.packageName },
    ...plan,
    next: next
      ? { date: next.invoiceDate, amount: withTax(money(next.money.totalMinor, next.currencyCode)) }
      : null,
    csrf: page.session.csrfToken,
  });
}

/** The pause as the form asks it, or the page that says why not (a resume day beyond MaxPauseDays: 422). */
async function planOrRefuse(page: SignedInPage, s: Subscription, fields: FormFields) {
  try {
    return await planSelfPause(page.portal.ctx, s.id, { resumeDate: fields['resume'], source: 'portal' });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const errors = error.fields.map((f) => ({ field: 'resume', message: resumeMessage(f.message) }));
    return renderForm(page, s, await pauseStart(page, s), fields, errors);
  }
}

/** The day a pause made now would start (a pause of one day, planned: the length is not what is asked). */
const pauseStart = async (page: SignedInPage, s: Subscription) =>
  (await planSelfPause(page.portal.ctx, s.id, { days: 1, source: 'portal' })).pauseDate;

/** The use case's words for ResumeDate, as the form names it. */
const resumeMessage = (message: string) => `Choose a resume date: it ${message}`;

const ownSubscription = (page: SignedInPage, id: string) =>
  ownedBySession(page, id, getSubscription, (s) => s.customerId);

/** The pause form of one of the session's subscriptions, unless it may not be paused here. */
export async function pauseFormPage(page: SignedInPage, id: string) {
  const s = await ownSubscription(page, id);
  if (!s) return page.notFound();
  const refused = await refusal(page, s);
  if (refused) return refused;
  // The day a pause made now would start: a resume day before it is refused, so the form says it first.
  return renderForm(page, s, await pauseStart(page, s));
}

/** The pause as planned from the form: confirmed (`confirm`), it is made; else its confirmation is shown. */
export async function pausePage(page: SignedInPage, id: string, fields: FormFields) {
  const s = await ownSubscription(page, id);
  if (!s) return page.notFound();
  const refused = await refusal(page, s);
  if (refused) return refused;
  const plan = await planOrRefuse(page, s, fields);
  if (!('pauseDate' in plan)) return plan;
  if (fields['confirm'] !== 'yes') return renderConfirm(page, s, plan);
  try {
    await pauseSubscriptionAsCustomer(page.portal.ctx, s.id, plan, 'portal');
  } catch (error) {
    if (!(error instanceof DomainError) || error.kind === 'not_found') throw error;
    return page.message(409, {
      title: 'Not paused',
      heading: 'The pause could not be made',
      message: `${error.message}. Nothing was paused; look at the subscription and try again.`,
      link: back(page, s),
    });
  }
  return page.redirect(`subscriptions/${s.id}?done=paused`);
}

/**
 * Ends an open pause now: billing restarts today on a new cycle (BillingAnchor resume_day), as PUT .../resume does
 * by default.
 */
export async function resumePage(page: SignedInPage, id: string) {
  const s = await ownSubscription(page, id);
  if (!s) return page.notFound();
  if (!hasOpenPause(s, today(page.portal.ctx))) {
    return page.message(409, {
      title: 'Not paused',
      heading: 'This subscription is not paused',
      message: 'Nothing was changed.',
      link: back(page, s),
    });
  }
  await resumeSubscription(page.portal.ctx, s.id, { billingAnchor: 'resume_day' });
  return page.redirect(`subscriptions/${s.id}?done=resumed`);
}
