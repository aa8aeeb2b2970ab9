import type { ServiceContext } from '../../context.ts';
import { ConflictError, NotAllowedError, ValidationError } from '../../errors.ts';
import { assertTestAccount } from '../auth/index.ts';
import { getGateway } from '../gateways/index.ts';
import { getPayment, reversePayment, settlePayment } from '../ledger/index.ts';
import type { Payment } from '../ledger/index.ts';
import { unopenedPaymentMethodsByIds } from '../paymentMethods/index.ts';

/**
 * POST /v1/test/simulate (docs/design/collections.md, "Late events"; GoCardless and Wise offer the same): a late
 * answer from a test-mode gateway about a payment it collected, without waiting for it. It takes the path a real one
 * would. `dispute` and `refund` reverse a settled or pending payment; `unpaid:<code>` fails one with the rail's
 * code; `paid` settles a pending one. Test accounts only (a live account may have a test-mode gateway, but its
 * payments are its books: docs/gateways.md).
 */
export const SIMULATE_SCENARIOS = ['paid', 'dispute', 'refund', 'unpaid:<code>'] as const;

/** What the 403 of a live account says it cannot do. */
export const SIMULATION_IS_FOR = "can simulate a gateway's late answers";

const UNPAID = /^unpaid:([A-Za-z0-9]{1,8})$/;

export async function simulateGatewayEvent(
  ctx: ServiceContext,
  input: { paymentId: number; scenario: string },
): Promise<Payment> {
  assertTestAccount(ctx.account, SIMULATION_IS_FOR);
  const scenario = input.scenario.trim();
  const unpaid = UNPAID.exec(scenario);
  if (!['paid', 'dispute', 'refund'].includes(scenario) && !unpaid) {
    throw ValidationError.field('scenario', `must be one of ${SIMULATE_SCENARIOS.join(', ')}`);
  }
  const payment = await getPayment(ctx, input.paymentId);
  const methodId = payment.paymentMethodId;
  const method =
    methodId === null ? undefined : (await unopenedPaymentMethodsByIds(ctx, [methodId])).get(methodId);
  const gateway = method?.gatewayId == null ? undefined : await getGateway(ctx, method.gatewayId);
  if (!gateway) {
    throw new ConflictError(
      'payment_not_collected',
      `Payment ${input.paymentId} was not collected through a gateway`,
    );
  }
  if (!gateway.isTestMode) {
    throw new NotAllowedError(
      'gateway_not_test_mode',
      `Gateway ${gateway.id} is not in test mode: only a test-mode gateway's events can be simulated`,
    );
  }
  if (scenario === 'paid') await settlePayment(ctx, input.paymentId);
  else if (unpaid) await reversePayment(ctx, input.paymentId, { reason: 'unpaid', code: unpaid[1]! });
  else {
    await reversePayment(ctx, input.paymentId, {
      reason: scenario === 'dispute' ? 'disputed' : 'refunded',
      code: scenario === 'dispute' ? 'chargeback' : 'refund',
    });
  }
  return getPayment(ctx, input.paymentId);
}
