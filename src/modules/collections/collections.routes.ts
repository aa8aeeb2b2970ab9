import { Type } from '@sinclair/typebox';
import { Id, Nullable, Text } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { PaymentOut, WireAmount, toPaymentDto } from '../ledger/index.ts';
import { refundPayment } from './refund.service.ts';

export function registerCollectionsRoutes(app: App): void {
  app.post(
    '/payments/:paymentID/refund',
    {
      schema: {
        summary: 'Refund a card payment through its gateway',
        operationId: 'refundPayment',
        tags: ['Payments'],
        description:
          'Beyond the spec: pays money back to the card a gateway charged, up to what the payment has not allocated ' +
          '(release allocations first with PUT /v1/payments/{id}). The refund is recorded as a positive refund ' +
          'adjustment the payment is allocated to (`payment.refunded`). 409 for a payment not charged by a ' +
          'gateway, a refund the gateway refuses, or one it did not answer (send it again: it is made at most once).',
        params: Type.Object({ paymentID: Id() }),
        body: Type.Object(
          { Amount: WireAmount('The amount to pay back'), Memo: Type.Optional(Nullable(Text(1000))) },
          { additionalProperties: false },
        ),
        response: { 200: PaymentOut },
      },
    },
    async (request) =>
      toPaymentDto(
        await refundPayment(request.ctx, request.params.paymentID, {
          amount: String(request.body.Amount),
          memo: request.body.Memo,
        }),
        request.ctx.account.timeZone,
      ),
  );
}
