import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { Id, pageOf } from '../../http/schemas.ts';
import { CouponListQuery, RedeemBody, RedemptionOut, toRedemptionDto } from '../coupons/index.ts';
import {
  endSubscriptionCoupon,
  listSubscriptionCoupons,
  redeemSubscriptionCoupon,
} from './subscriptionCoupons.service.ts';

const tags = ['Coupons'];
const SubscriptionParams = Type.Object({ subscriptionID: Id() });
const RedemptionParams = Type.Object({ subscriptionID: Id(), couponRedemptionID: Id() });

/** A subscription's coupons (docs/credits.md, "Coupons"); a customer's and the coupons themselves: coupons'. */
export function registerSubscriptionCouponRoutes(app: App): void {
  app.get(
    '/subscriptions/:subscriptionID/coupons',
    {
      schema: {
        summary: 'List the coupons redeemed on a subscription',
        operationId: 'listSubscriptionCoupons',
        description:
          'Redemptions on this subscription, ended ones too (its customer’s are listed on the customer).',
        tags,
        params: SubscriptionParams,
        querystring: CouponListQuery,
        response: { 200: Type.Array(RedemptionOut) },
      },
    },
    async (request) =>
      (await listSubscriptionCoupons(request.ctx, request.params.subscriptionID, pageOf(request.query))).map(
        toRedemptionDto,
      ),
  );

  app.post(
    '/subscriptions/:subscriptionID/coupons',
    {
      schema: {
        summary: 'Redeem a coupon on a subscription',
        operationId: 'redeemSubscriptionCoupon',
        description:
          'The coupon discounts the subscription’s invoices dated from today, for its duration in billed ' +
          'periods. 409 coupon_exhausted, coupon_expired, coupon_archived, coupon_currency_mismatch, ' +
          'coupon_not_applicable, coupon_already_redeemed.',
        tags,
        params: SubscriptionParams,
        body: RedeemBody,
        response: { 201: RedemptionOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(
          toRedemptionDto(
            await redeemSubscriptionCoupon(request.ctx, request.params.subscriptionID, request.body.Code),
          ),
        ),
  );

  app.delete(
    '/subscriptions/:subscriptionID/coupons/:couponRedemptionID',
    {
      schema: {
        summary: 'End a coupon redeemed on a subscription',
        operationId: 'endSubscriptionCoupon',
        description: 'It discounts no invoice made from now on; answers the ended redemption.',
        tags,
        params: RedemptionParams,
        response: { 200: RedemptionOut },
      },
    },
    async (request) =>
      toRedemptionDto(
        await endSubscriptionCoupon(
          request.ctx,
          request.params.subscriptionID,
          request.params.couponRedemptionID,
        ),
      ),
  );
}
