import { Type } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';
import type { App } from '../../http/types.ts';
import { PaymentOut, toPaymentDto } from '../ledger/index.ts';
import { SIMULATE_SCENARIOS, simulateGatewayEvent } from './simulate.service.ts';

const tags = ['Test clock'];

export function registerCollectionsRoutes(app: App): void {
  app.post(
    '/test/simulate',
    {
      schema: {
        summary: "Simulate a test gateway's late answer about a payment",
        operationId: 'simulateGatewayEvent',
        tags,
        description:
          'Beyond the spec, for test-mode gateways only (403 otherwise): what a gateway reports days later, now. ' +
          '`dispute` and `refund` reverse a collected payment (Failed, its invoices owe the money again, ' +
          '`payment.reversed`); `unpaid:<code>` fails it with the rail’s return code; `paid` settles a pending one. ' +
          'Answers the payment as it now is. docs/gateways.md.',
        body: Type.Object(
          {
            paymentID: Id(),
            scenario: Type.String({ maxLength: 16, description: SIMULATE_SCENARIOS.join(', ') }),
          },
          { additionalProperties: false },
        ),
        response: { 200: PaymentOut },
      },
    },
    async (request) =>
      toPaymentDto(
        await simulateGatewayEvent(request.ctx, {
          paymentId: request.body.paymentID,
          scenario: request.body.scenario,
        }),
        request.ctx.account.timeZone,
      ),
  );
}
