import { addGateway } from '../../src/modules/gateways/index.ts';
import { ok } from '../helpers/billing.ts';
import { accountContext } from '../helpers/context.ts';
import type { TestAccount, TestService } from '../helpers/service.ts';

// What the tests of a real provider's driver set up alike (test/providers/): an account whose primary gateway is the
// provider's, and a capture session kept at that gateway.

export interface ProviderAccount {
  account: TestAccount;
  gatewayId: number;
  gatewayToken: string;
}

/**
 * A new test account of `t` (UTC) whose primary gateway is the provider's, added through the gateways module with
 * `providerFetch` (the provider's simulator): its settings are checked with the provider as they are added.
 */
export async function accountOnProvider(
  t: TestService,
  providerFetch: typeof fetch,
  options: {
    name: string;
    currencyCode: string;
    gateway: { type: 'stripe' | 'paystack'; friendlyName: string; settings: Record<string, unknown> };
  },
): Promise<ProviderAccount> {
  const account = await t.newAccount(options.name, {
    isTest: true,
    timeZone: 'UTC',
    currencyCode: options.currencyCode,
  });
  const ctx = { ...(await accountContext(t, account.accountId)), providerFetch };
  const gateway = await addGateway(ctx, { ...options.gateway, isPrimary: true });
  return { account, gatewayId: gateway.id, gatewayToken: gateway.token };
}

/**
 * A capture session on the provider's gateway, as a merchant's server creates it: VaultOnly, the card kept at the
 * gateway, from https://shop.example.com, unless `body` says otherwise.
 */
export function providerSession(
  account: TestAccount,
  gatewayToken: string,
  currencyCode: string,
  body: Record<string, unknown> = {},
): Promise<any> {
  return ok(
    account,
    'POST',
    '/v1/widgets/capturepaymethod/create',
    {
      VaultingType: 'VaultGateway',
      SaleType: 'VaultOnly',
      ExpiresIn: '00:30:00',
      isVaultOnlyOnSuccess: true,
      CurrencyCode: currencyCode,
      GatewayToken: gatewayToken,
      AuthDomain: 'https://shop.example.com',
      ...body,
    },
    200,
  );
}
