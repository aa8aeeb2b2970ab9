import { describe, expect, it } from 'vitest';
import { stripeSettingsProblems } from './stripeSettings.ts';

const TEST_KEYS = {
  secretKey: 'sk_test_51abc',
  publishableKey: 'pk_test_51abc',
  webhookSecret: 'whsec_abc123',
};

describe("a Stripe gateway's settings", () => {
  it('take test keys in test mode, live keys in live mode, and restricted keys', () => {
    expect(stripeSettingsProblems(TEST_KEYS, true)).toEqual([]);
    expect(stripeSettingsProblems({ ...TEST_KEYS, secretKey: 'rk_test_51abc' }, true)).toEqual([]);
    const live = {
      secretKey: 'rk_live_51abc',
      publishableKey: 'pk_live_51abc',
      webhookSecret: 'whsec_abc123',
    };
    expect(stripeSettingsProblems(live, false)).toEqual([]);
  });

  it('name every missing setting at once', () => {
    expect(stripeSettingsProblems({}, true).map((p) => p.field)).toEqual([
      'Settings.secretKey',
      'Settings.publishableKey',
      'Settings.webhookSecret',
    ]);
  });

  it('refuse keys of the other mode, saying which mode the gateway is in', () => {
    expect(stripeSettingsProblems(TEST_KEYS, false)).toEqual([
      {
        field: 'Settings.secretKey',
        message:
          'is a test-mode key, and the gateway is in live mode: use a key starting sk_live_ or rk_live_',
      },
      {
        field: 'Settings.publishableKey',
        message: 'is a test-mode key, and the gateway is in live mode: use a key starting pk_live_',
      },
    ]);
  });

  it('refuse a publishable key where the secret key goes, and a webhook secret that is not one', () => {
    const swapped = { secretKey: 'pk_test_51abc', publishableKey: 'sk_test_51abc', webhookSecret: 'we_123' };
    expect(stripeSettingsProblems(swapped, true)).toEqual([
      {
        field: 'Settings.secretKey',
        message: 'must be a secret or restricted key starting sk_test_ or rk_test_',
      },
      { field: 'Settings.publishableKey', message: 'must be a publishable key starting pk_test_' },
      {
        field: 'Settings.webhookSecret',
        message: "must be the webhook endpoint's signing secret, starting whsec_",
      },
    ]);
  });
});
