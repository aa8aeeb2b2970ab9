import type { ServiceContext } from '../../context.ts';
import * as repo from './gateway.repository.ts';
import type { DriverModule, GatewayDriver, GatewayTarget } from './gatewayContract.ts';
import { GATEWAY_TYPES } from './gatewayTypes.ts';
import { netcashDriverModule } from './netcash/netcashDriver.ts';
import { paystackDriverModule } from './paystack/paystackDriver.ts';
import { stripeDriverModule } from './stripe/stripeDriver.ts';
import { testGatewayDriver } from './testGateway.ts';

/**
 * The drivers of the gateway types (docs/gateways.md, "Adding a real provider"), each made per call with the
 * gateway's settings opened, the providers' HTTP client and the wall clock; and each type's check of its settings.
 */

/** The provider behind each gateway type; a type without one (manual, bankfile) collects nothing itself. */
const DRIVERS: Readonly<Partial<Record<string, DriverModule>>> = {
  [GATEWAY_TYPES.test.type]: { create: testGatewayDriver },
  [GATEWAY_TYPES.stripe.type]: stripeDriverModule,
  [GATEWAY_TYPES.paystack.type]: paystackDriverModule,
  [GATEWAY_TYPES.netcash.type]: netcashDriverModule,
};

/** The check of a type's settings when a gateway of it is added, if it has one. */
export function settingsCheckOf(type: string): DriverModule['settingsProblems'] {
  return Object.hasOwn(DRIVERS, type) ? DRIVERS[type]?.settingsProblems : undefined;
}

/** Whether a gateway of the type has its settings checked by its provider before it is used. */
export function checksSettingsWithProvider(type: string): boolean {
  return Object.hasOwn(DRIVERS, type) && DRIVERS[type]?.checksSettings === true;
}

/** Whether a gateway of the type has its provider verify a new bank account before the first debit (SA AVS). */
export function verifiesNewBankAccountsType(type: string): boolean {
  return Object.hasOwn(DRIVERS, type) && DRIVERS[type]?.verifiesNewBankAccounts === true;
}

/** The gateway's driver, given its settings opened, the providers' HTTP client and the wall clock. */
async function driverOf(ctx: ServiceContext, gateway: GatewayTarget): Promise<GatewayDriver | undefined> {
  const driver = Object.hasOwn(DRIVERS, gateway.type) ? DRIVERS[gateway.type] : undefined;
  if (!driver) return undefined;
  return driver.create({
    db: ctx.db,
    settings: await gatewaySettings(ctx, gateway),
    fetch: ctx.providerFetch ?? globalThis.fetch,
    wallClock: ctx.wallClock,
  });
}

/** The driver's operation, or undefined when the gateway's type has none. */
export async function operationOf<K extends keyof GatewayDriver>(
  ctx: ServiceContext,
  gateway: GatewayTarget,
  operation: K,
): Promise<NonNullable<GatewayDriver[K]> | undefined> {
  const driver = await driverOf(ctx, gateway);
  const found = driver?.[operation];
  return found ? (found.bind(driver) as NonNullable<GatewayDriver[K]>) : undefined;
}

/** The gateway's settings as they were given (a JSON object), opened; an empty object when it has none. */
export async function gatewaySettings(
  ctx: ServiceContext,
  gateway: GatewayTarget,
): Promise<Record<string, unknown>> {
  const sealed = await repo.findGatewaySettings(ctx.db, ctx.account.id, gateway.id);
  return sealed === null ? {} : (JSON.parse(ctx.secrets.open(sealed)) as Record<string, unknown>);
}
