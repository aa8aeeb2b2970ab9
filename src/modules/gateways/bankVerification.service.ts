import type { ServiceContext } from '../../context.ts';
import type { Gateway } from './gateway.service.ts';
import { isGatewayUsable } from './gateway.service.ts';
import { recordedCall } from './gatewayCalls.ts';
import type { BankValidationResult } from './gatewayContract.ts';
import { operationOf, verifiesNewBankAccountsType } from './gatewayDrivers.ts';

/**
 * A new debit-order bank account verified with the debtor's bank before its first debit (SA AVS; docs/gateways/
 * netcash.md, "Account verification"): whether a gateway does, and the bank's later answer to a question it sent
 * on in bulk. The question itself is `validateBankAccountAtGateway` (gateway.service.ts).
 */

/**
 * Whether the gateway verifies a new bank account before its first debit: usable, of a type whose provider does, and
 * set up for it (its driver, made with its settings, has the operation; Netcash's needs its risk-reports key).
 */
export async function verifiesNewBankAccounts(ctx: ServiceContext, gateway: Gateway): Promise<boolean> {
  if (!isGatewayUsable(gateway) || !verifiesNewBankAccountsType(gateway.type)) return false;
  return (await operationOf(ctx, gateway, 'validateBankAccount')) !== undefined;
}

/**
 * The bank's answer to a verification the provider sent on in bulk (`providerRef`, our `reference`), recorded with
 * the references only: `pending` until it has come. A gateway that cannot be asked answers `pending`.
 */
export async function bankValidationOutcomeAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  providerRef: string,
  reference: string,
): Promise<BankValidationResult> {
  const ask = await operationOf(ctx, gateway, 'bankValidationOutcome');
  if (!ask) return { outcome: 'pending', detail: `gateway ${gateway.id} cannot be asked for the answer` };
  return recordedCall(
    ctx,
    gateway.id,
    { operation: 'bank_validation_outcome', request: { providerRef, reference } },
    () => ask(gateway, providerRef, reference),
  );
}
