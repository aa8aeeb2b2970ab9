import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import type { PortalRequests } from './portalHttp.ts';
import { IdParams, SlugParams } from './portal.schemas.ts';
import {
  cancelSubscriptionPage,
  changeSubscriptionPage,
  redeemCouponPage,
  subscriptionOfSession,
  subscriptionPage,
  subscriptionsPage,
} from './subscriptionsPage.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import type { Subscription } from '../subscriptions/index.ts';

const DetailQuery = Type.Object({
  done: Type.Optional(
    Type.Union([
      Type.Literal('cancelled'),
      Type.Literal('changed'),
      Type.Literal('coupon'),
      Type.Literal('paused'),
      Type.Literal('resumed'),
    ]),
  ),
});

/** A form's page function, given the session's subscription the form names. */
type SubscriptionForm = (
  page: SignedInPage,
  subscription: Subscription,
  fields: FormFields,
) => Promise<unknown>;

/** Subscriptions: the list, one subscription, cancelling at period end and changing package (docs/portal.md). */
export function registerSubscriptionRoutes(portal: App, pages: PortalRequests): void {
  /** A form post on one of the session's subscriptions (not found when it is another's), answered by `pageOf`. */
  const subscriptionForm = (path: string, pageOf: SubscriptionForm) =>
    portal.post(path, { schema: { hide: true, params: IdParams } }, async (request, reply) => {
      const form = await pages.signedInForm(request, reply, request.params.slug);
      if (!form) return reply;
      const subscription = await subscriptionOfSession(form.page, request.params.id);
      if (!subscription) return form.page.notFound();
      return pageOf(form.page, subscription, form.fields);
    });
  portal.get(
    '/portal/:slug/subscriptions',
    { schema: { hide: true, params: SlugParams } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? subscriptionsPage(page) : reply;
    },
  );
  portal.get(
    '/portal/:slug/subscriptions/:id',
    { schema: { hide: true, params: IdParams, querystring: DetailQuery } },
    async (request, reply) => {
      const page = await pages.signedIn(request, reply, request.params.slug);
      return page ? subscriptionPage(page, request.params.id, request.query.done) : reply;
    },
  );
  subscriptionForm('/portal/:slug/subscriptions/:id/cancel', cancelSubscriptionPage);
  subscriptionForm('/portal/:slug/subscriptions/:id/coupon', redeemCouponPage);
  subscriptionForm('/portal/:slug/subscriptions/:id/change', changeSubscriptionPage);
}
