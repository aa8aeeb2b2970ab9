import { Type } from '@sinclair/typebox';
import { idempotentCreate } from '../../http/idempotency.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import * as payments from './payment.service.ts';
import {
  CreatePaymentBody,
  CustomerIdParams,
  EditPaymentBody,
  PaymentIdParams,
  PaymentOut,
} from './payments.schemas.ts';
import { paymentInputFromWire, toPaymentDto } from './payments.serializer.ts';

const tags = ['Payments'];

export function registerPaymentsRoutes(app: App): void {
  app.get(
    '/customers/:customerID/payments',
    {
      schema: {
        summary: "List a customer's payments",
        operationId: 'listCustomerPayments',
        description: "The customer's payments in creation order, with their allocations.",
        tags,
        params: CustomerIdParams,
        querystring: PagingQuery,
        response: { 200: Type.Array(PaymentOut) },
      },
    },
    async (request) =>
      (await payments.listPayments(request.ctx, pageOf(request.query), request.params.customerID)).map((p) =>
        toPaymentDto(p, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/payments',
    {
      schema: {
        summary: 'List payments',
        operationId: 'listPayments',
        description: "The account's payments in creation order, with their allocations.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(PaymentOut) },
      },
    },
    async (request) =>
      (await payments.listPayments(request.ctx, pageOf(request.query))).map((p) =>
        toPaymentDto(p, request.ctx.account.timeZone),
      ),
  );

  app.get(
    '/payments/:paymentID',
    {
      schema: {
        summary: 'Get a payment',
        operationId: 'getPayment',
        description: 'One payment with its allocations.',
        tags,
        params: PaymentIdParams,
        response: { 200: PaymentOut },
      },
    },
    async (request) =>
      toPaymentDto(
        await payments.getPayment(request.ctx, request.params.paymentID),
        request.ctx.account.timeZone,
      ),
  );

  app.post(
    '/payments',
    {
      schema: {
        summary: 'Record a payment',
        operationId: 'createPayment',
        tags,
        description:
          'Records a payment. AutoApply applies it to the earliest open invoices (InvoiceDate, then invoiceNum) ' +
          'until it is spent; otherwise the allocations list (allocations or Allocations) is required.',
        body: CreatePaymentBody,
        response: { 201: PaymentOut },
      },
    },
    async (request, reply) => {
      const input = paymentInputFromWire(request.body, true, request.ctx.account.timeZone);
      return idempotentCreate(
        request,
        reply,
        (ctx) => payments.createPayment(ctx, input),
        (created) => created.rendered,
        { customerId: input.customerId },
      );
    },
  );

  app.put(
    '/payments/:paymentID',
    {
      schema: {
        summary: 'Replace a payment',
        operationId: 'editPayment',
        tags,
        description:
          'Replaces the payment and its allocations: an allocation with allocationID is edited, one without is ' +
          'added, one left out is deleted.',
        params: PaymentIdParams,
        body: EditPaymentBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await payments.updatePayment(
        request.ctx,
        request.params.paymentID,
        paymentInputFromWire(request.body, false, request.ctx.account.timeZone),
      );
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/payments/:paymentID',
    {
      schema: {
        summary: 'Delete a payment',
        operationId: 'deletePayment',
        tags,
        description: 'Deletes the payment and its allocations; what it paid is owed again.',
        params: PaymentIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await payments.deletePayment(request.ctx, request.params.paymentID);
      return reply.code(204).send(null);
    },
  );
}
