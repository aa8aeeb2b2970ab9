import type { Clock } from '../../clock.ts';
import { contextFor, nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import {
  copyAccountSettingsTo,
  createAccount,
  lockTestAccountForGoLive,
  recordLiveAccountOf,
} from '../auth/index.ts';
import type { Account } from '../auth/index.ts';
import { copyCatalogue } from '../catalogue/index.ts';
import { copyCoupons } from '../coupons/index.ts';
import { copyFeatures } from '../entitlements/index.ts';
import { copyRetentionRules } from '../retention/index.ts';
import { copyWebhookEndpoints } from '../events/index.ts';
import type { WebhookEndpoint } from '../events/index.ts';
import { stepsLeftByHand } from './stepsLeft.ts';

export interface GoLiveInput {
  /** The live account's name; the test account's when left out. */
  name?: string;
}

/** What a go-live made: the live account, its first key (shown once), what was copied and what is left to do. */
export interface WentLive {
  testAccountId: number;
  liveAccount: Account;
  apiKey: string;
  copied: {
    currencies: number;
    taxSettings: number;
    billableMetrics: number;
    packageGroups: number;
    packages: number;
    components: number;
    features: number;
    coupons: number;
  };
  /** Each copied endpoint, disabled, with its own new signing secret (shown once). */
  webhookEndpoints: { endpoint: WebhookEndpoint; secret: string }[];
  stepsLeft: string[];
}

/**
 * Makes the live account of a test account (docs/going-live.md, "Making the live account"): a new live account with
 * the test account's settings, seller details, logo, taxes, currencies and catalogue, its features, coupons and
 * cancel reasons with their offers, and its webhook endpoints disabled until confirmed; no customer, payment method,
 * invoice or test-clock state. All in one transaction, each module copying what it owns, in the module order, so a
 * failure leaves nothing behind; the test account remembers the live account, and a second go-live is refused naming it.
 * `serviceClock` is the service's business clock, which the live account lives on (not the test account's).
 */
export async function goLive(
  ctx: ServiceContext,
  input: GoLiveInput,
  serviceClock: Clock,
): Promise<WentLive> {
  const name = input.name === undefined ? ctx.account.name : input.name.trim();
  if (name === '') throw ValidationError.field('Name', 'must not be blank');
  return withTransaction(ctx, async (tctx) => {
    await lockTestAccountForGoLive(tctx);
    const made = await createAccount(
      tctx.db,
      { clock: serviceClock, wallClock: tctx.wallClock, ports: tctx.ports },
      { name, timeZone: tctx.account.timeZone, currencyCode: tctx.account.currencyCode, isTest: false },
      // Made to bill real customers: its test gateway stays off whatever the deployment allows (docs/gateways.md).
      { testGatewayOnLiveAccounts: false },
      tctx.actor,
    );
    const live = contextFor({ ...tctx, clock: serviceClock }, made.account);
    const to = { accountId: made.account.id, now: nowInstant(live) };
    const catalogue = await copyCatalogue(tctx.db, tctx.account.id, to);
    await copyAccountSettingsTo(tctx, to, catalogue.packages);
    const coupons = await copyCoupons(tctx.db, tctx.account.id, to, catalogue);
    const features = await copyFeatures(tctx.db, tctx.account.id, to, catalogue);
    await copyRetentionRules(tctx.db, tctx.account.id, to, { ...catalogue, coupons });
    const webhookEndpoints = await copyWebhookEndpoints(tctx, live);
    await recordLiveAccountOf(tctx, made.account.id);
    const wentLive: Omit<WentLive, 'stepsLeft'> = {
      testAccountId: tctx.account.id,
      liveAccount: made.account,
      apiKey: made.apiKey,
      copied: {
        currencies: catalogue.currencies,
        taxSettings: catalogue.taxSettings.size,
        billableMetrics: catalogue.billableMetrics.size,
        packageGroups: catalogue.packageGroups.size,
        packages: catalogue.packages.size,
        components: catalogue.components.size,
        features,
        coupons: coupons.size,
      },
      webhookEndpoints,
    };
    return {
      ...wentLive,
      stepsLeft: stepsLeftByHand(wentLive, { publicUrl: ctx.publicUrl, portalSlug: ctx.account.portalSlug }),
    };
  });
}
