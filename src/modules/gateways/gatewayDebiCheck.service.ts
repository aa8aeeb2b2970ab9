import type { ServiceContext } from '../../context.ts';
import type { Gateway } from './gateway.service.ts';
import { recordedCall } from './gatewayCalls.ts';
import type {
  DebiCheckAmendment,
  DebiCheckAnswer,
  DebiCheckChange,
  DebiCheckToAuthenticate,
} from './gatewayContract.ts';
import { operationOf } from './gatewayDrivers.ts';

/**
 * DebiCheck mandates through a gateway's provider (docs/gateways/netcash.md, "DebiCheck"), each call recorded
 * (gateway_calls) with what identifies the mandate and never the account or identity number: the mandate's own
 * reference, the last four digits of the account, the last three of the identity number. Made outside any
 * transaction, as every provider call is. A gateway whose type has no DebiCheck answers `refused`.
 */

const notOffered = (gateway: Gateway) => ({
  outcome: 'refused' as const,
  rawCode: 'unsupported',
  detail: `gateway ${gateway.id} (${gateway.type}) does not register DebiCheck mandates`,
});

/** Whether the gateway's type registers DebiCheck mandates. */
export async function registersDebiCheck(ctx: ServiceContext, gateway: Gateway): Promise<boolean> {
  return (await operationOf(ctx, gateway, 'authenticateDebiCheck')) !== undefined;
}

/** Asks the debtor's bank, through the gateway, to authenticate the mandate. */
export async function authenticateDebiCheckAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  mandate: DebiCheckToAuthenticate,
): Promise<DebiCheckAnswer> {
  const authenticate = await operationOf(ctx, gateway, 'authenticateDebiCheck');
  if (!authenticate) return notOffered(gateway);
  return recordedCall(
    ctx,
    gateway.id,
    {
      operation: 'debicheck_authenticate',
      request: {
        accountReference: mandate.accountReference,
        lastFour: mandate.accountNumber.slice(-4),
        idEnding: mandate.idNumber.slice(-3),
        amountMinor: mandate.amountMinor,
        firstCollectionDate: mandate.firstCollectionDate,
        collectionDay: mandate.collectionDay,
      },
    },
    () => authenticate(gateway, mandate),
  );
}

/** Where the authentication is now, asked of the gateway by its contract reference. */
export async function debiCheckStatusAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  contractReference: string,
): Promise<DebiCheckAnswer> {
  const status = await operationOf(ctx, gateway, 'debiCheckStatus');
  if (!status) return notOffered(gateway);
  return recordedCall(
    ctx,
    gateway.id,
    { operation: 'debicheck_status', request: { contractReference } },
    () => status(gateway, contractReference),
  );
}

/** Amends an authenticated mandate's amounts at the gateway. */
export async function amendDebiCheckAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  contractReference: string,
  amendment: DebiCheckAmendment,
): Promise<DebiCheckChange> {
  const amend = await operationOf(ctx, gateway, 'amendDebiCheck');
  if (!amend) return notOffered(gateway);
  return recordedCall(
    ctx,
    gateway.id,
    { operation: 'debicheck_amend', request: { contractReference, ...amendment } },
    () => amend(gateway, contractReference, amendment),
  );
}

/** Cancels the authentication at the gateway, with the bank's reason code. */
export async function cancelDebiCheckAtGateway(
  ctx: ServiceContext,
  gateway: Gateway,
  contractReference: string,
  reasonCode: string,
): Promise<DebiCheckChange> {
  const cancel = await operationOf(ctx, gateway, 'cancelDebiCheck');
  if (!cancel) return notOffered(gateway);
  return recordedCall(
    ctx,
    gateway.id,
    { operation: 'debicheck_cancel', request: { contractReference, reasonCode } },
    () => cancel(gateway, contractReference, reasonCode),
  );
}
