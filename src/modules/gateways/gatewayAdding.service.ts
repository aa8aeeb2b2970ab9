import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import * as repo from './gateway.repository.ts';
import type { Gateway } from './gateway.repository.ts';
import {
  LIVE_ONLY,
  addGateway,
  getGateway,
  setGatewayEnabled,
  setGatewaySettings,
  setPrimaryGateway,
} from './gateway.service.ts';
import type { AddGatewayInput, TestGatewayPolicy } from './gateway.service.ts';
import type { SettingsCheck } from './gatewayContract.ts';
import { checksSettingsWithProvider } from './gatewayDrivers.ts';
import { checkGatewaySettings } from './gatewayProviders.service.ts';
import { gatewayTypeInfo } from './gatewayTypes.ts';

/** What the provider said of the settings; `unreachable` when no answer came (the network, a timeout). */
export type AddedGatewayCheck = SettingsCheck | { outcome: 'unreachable'; message: string };

export interface AddedGateway {
  gateway: Gateway;
  /** Undefined for a type with no provider to ask. */
  check: AddedGatewayCheck | undefined;
  /** The gateway is the one an earlier try left disabled, taken over rather than added again. */
  retried: boolean;
}

/**
 * Adds a gateway as `billing gateway add` does (docs/operations.md, "Gateways"). A gateway whose provider checks
 * its settings (Paystack, Stripe) is added disabled and never primary, its keys are tried, and only a check that
 * passes enables it (and makes it primary when asked, or when the account has none). A check that fails (keys
 * refused, the provider unreachable) leaves it disabled and says why; the same command run again takes that
 * gateway over (same type, name and mode, still disabled) instead of adding a second. Other types are added as
 * before, enabled at once.
 */
export async function addCheckedGateway(
  ctx: ServiceContext,
  input: AddGatewayInput,
  deployment: TestGatewayPolicy = LIVE_ONLY,
): Promise<AddedGateway> {
  const type = input.type.trim().toLowerCase();
  if (!checksSettingsWithProvider(type))
    return { gateway: await addGateway(ctx, input, deployment), check: undefined, retried: false };
  const earlier = await earlierTry(ctx, type, input);
  const waiting = earlier
    ? input.settings === undefined
      ? earlier
      : await setGatewaySettings(ctx, earlier.id, input.settings)
    : await addGateway(ctx, input, deployment, { waitingForCheck: true });
  const check = await tryProvider(ctx, waiting);
  if (check?.outcome !== 'ok') return { gateway: waiting, check, retried: earlier !== undefined };
  await setGatewayEnabled(ctx, waiting.id, true);
  if (input.isPrimary || !(await repo.findPrimaryGateway(ctx.db, ctx.account.id)))
    await setPrimaryGateway(ctx, waiting.id);
  return { gateway: await getGateway(ctx, waiting.id), check, retried: earlier !== undefined };
}

/**
 * The gateway an earlier try of the same add left disabled, if any. One of the same type, name and mode already in
 * use is refused: adding it again would make a second copy (change its keys with `billing gateway settings`).
 */
async function earlierTry(
  ctx: ServiceContext,
  type: string,
  input: AddGatewayInput,
): Promise<Gateway | undefined> {
  const info = gatewayTypeInfo(type);
  const isTestMode = (info?.alwaysTestMode ?? false) || ctx.account.isTest || (input.isTestMode ?? false);
  const same = (await repo.findGatewaysNamed(ctx.db, ctx.account.id, type, input.friendlyName.trim())).filter(
    (gateway) => gateway.isTestMode === isTestMode,
  );
  const inUse = same.find((gateway) => gateway.isEnabled || gateway.isPrimary);
  if (inUse) {
    throw new ConflictError(
      'gateway_exists',
      `Gateway ${inUse.id} is the account's ${type} gateway "${inUse.friendlyName}" already; ` +
        `change its keys with: billing gateway settings ${inUse.id}`,
    );
  }
  return same[0];
}

/** The provider's word on the gateway's settings; no answer at all (a network error, a timeout) in words too. */
async function tryProvider(ctx: ServiceContext, gateway: Gateway): Promise<AddedGatewayCheck | undefined> {
  try {
    return await checkGatewaySettings(ctx, gateway);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { outcome: 'unreachable', message: `the provider could not be reached (${reason})` };
  }
}
