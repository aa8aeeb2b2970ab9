import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { pageOf } from '../../http/schemas.ts';
import * as coupons from './coupon.service.ts';
import * as redemptions from './redemption.service.ts';
import {
  CouponBody,
  CouponEditBody,
  CouponListQuery,
  CouponOut,
  CouponParams,
  CustomerParams,
  CustomerRedemptionParams,
  RedeemBody,
  RedemptionOut,
} from './coupons.schemas.ts';
import {
  couponEditFromWire,
  couponInputFromWire,
  toCouponDto,
  toRedemptionDto,
} from './coupons.serializer.ts';

const tags = ['Coupons'];

/** Coupons and their redemptions on customers (docs/credits.md, "Coupons"); a subscription's are subscriptions'. */
export function registerCouponRoutes(app: App): void {
  app.get(
    '/coupons',
    {
      schema: {
        summary: 'List coupons',
        operationId: 'listCoupons',
        description: 'The account’s coupons in creation order; `archived` filters.',
        tags,
        querystring: CouponListQuery,
        response: { 200: Type.Array(CouponOut) },
      },
    },
    async (request) =>
      (
        await coupons.listCoupons(
          request.ctx,
          { archived: request.query.archived ?? null },
          pageOf(request.query),
        )
      ).map(toCouponDto),
  );

  app.get(
    '/coupons/:couponID',
    {
      schema: {
        summary: 'Get a coupon',
        operationId: 'getCoupon',
        description: 'One coupon, with how many times it has been redeemed.',
        tags,
        params: CouponParams,
        response: { 200: CouponOut },
      },
    },
    async (request) => toCouponDto(await coupons.getCoupon(request.ctx, request.params.couponID)),
  );

  app.post(
    '/coupons',
    {
      schema: {
        summary: 'Create a coupon',
        operationId: 'createCoupon',
        description:
          'A percentage (PercentOff) or an amount in one currency (AmountOff, CurrencyCode), for one billed ' +
          'period, DurationPeriods of them or for ever; optionally until RedeemBy, at most MaxRedemptions times, ' +
          'only on some packages or components (AppliesTo).',
        tags,
        body: CouponBody,
        response: { 201: CouponOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(toCouponDto(await coupons.createCoupon(request.ctx, couponInputFromWire(request.body)))),
  );

  app.put(
    '/coupons/:couponID',
    {
      schema: {
        summary: 'Replace a coupon’s name, limits and reach',
        operationId: 'editCoupon',
        description:
          'Name, RedeemBy, MaxRedemptions (not below RedemptionCount), AppliesTo and PortalRedeemable; its Code, ' +
          'discount and duration stay as redeemed.',
        tags,
        params: CouponParams,
        body: CouponEditBody,
        response: { 200: CouponOut },
      },
    },
    async (request) =>
      toCouponDto(
        await coupons.updateCoupon(request.ctx, request.params.couponID, couponEditFromWire(request.body)),
      ),
  );

  app.delete(
    '/coupons/:couponID',
    {
      schema: {
        summary: 'Archive a coupon',
        operationId: 'archiveCoupon',
        description:
          'It can no longer be redeemed; its redemptions keep discounting. Answers the archived coupon.',
        tags,
        params: CouponParams,
        response: { 200: CouponOut },
      },
    },
    async (request) => toCouponDto(await coupons.archiveCoupon(request.ctx, request.params.couponID)),
  );

  app.get(
    '/customers/:customerID/coupons',
    {
      schema: {
        summary: 'List the coupons redeemed on a customer',
        operationId: 'listCustomerCoupons',
        description: 'Redemptions on the customer itself (every subscription of theirs), ended ones too.',
        tags,
        params: CustomerParams,
        querystring: CouponListQuery,
        response: { 200: Type.Array(RedemptionOut) },
      },
    },
    async (request) => {
      const { customerId } = await redemptions.customerTarget(request.ctx, request.params.customerID);
      return (await redemptions.listRedemptions(request.ctx, { customerId }, pageOf(request.query))).map(
        toRedemptionDto,
      );
    },
  );

  app.post(
    '/customers/:customerID/coupons',
    {
      schema: {
        summary: 'Redeem a coupon on a customer',
        operationId: 'redeemCustomerCoupon',
        description:
          'The coupon discounts the invoices of every subscription of the customer from today. 409 ' +
          'coupon_exhausted, coupon_expired, coupon_archived, coupon_currency_mismatch, coupon_already_redeemed.',
        tags,
        params: CustomerParams,
        body: RedeemBody,
        response: { 201: RedemptionOut },
      },
    },
    async (request, reply) => {
      const target = await redemptions.customerTarget(request.ctx, request.params.customerID);
      const redeemed = await redemptions.redeemCoupon(request.ctx, target, request.body.Code);
      return reply.code(201).send(toRedemptionDto(redeemed));
    },
  );

  app.delete(
    '/customers/:customerID/coupons/:couponRedemptionID',
    {
      schema: {
        summary: 'End a coupon redeemed on a customer',
        operationId: 'endCustomerCoupon',
        description: 'It discounts no invoice made from now on; answers the ended redemption.',
        tags,
        params: CustomerRedemptionParams,
        response: { 200: RedemptionOut },
      },
    },
    async (request) =>
      toRedemptionDto(
        await redemptions.endRedemption(
          request.ctx,
          { customerId: request.params.customerID },
          request.params.couponRedemptionID,
        ),
      ),
  );
}
