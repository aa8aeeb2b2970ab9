import type { FieldProblem } from '../../../errors.ts';

/**
 * A Stripe gateway's settings (docs/gateways/stripe.md, "Keys"): the secret key the service calls Stripe with (a
 * restricted key will do), the publishable key the capture frame's Payment Element mounts with, and the signing
 * secret of the webhook endpoint. Sealed at rest like every gateway's settings.
 */
export interface StripeSettings {
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
}

/** What each key must look like: its prefixes in test mode and in live mode (Stripe's key prefixes). */
const KEYS = {
  secretKey: {
    test: ['sk_test_', 'rk_test_'],
    live: ['sk_live_', 'rk_live_'],
    what: 'a secret or restricted key',
  },
  publishableKey: { test: ['pk_test_'], live: ['pk_live_'], what: 'a publishable key' },
} as const;

const KEY_TEXT = /^[A-Za-z0-9_]+$/;

/** Every problem with the settings, each naming its field, for a gateway in test mode or live. */
export function stripeSettingsProblems(
  settings: Readonly<Record<string, unknown>>,
  isTestMode: boolean,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const [field, key] of Object.entries(KEYS)) {
    const value = settings[field];
    const wanted = isTestMode ? key.test : key.live;
    const other = isTestMode ? key.live : key.test;
    const name = `Settings.${field}`;
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push({ field: name, message: `is required: ${key.what} (${wanted.join(' or ')}…)` });
    } else if (other.some((prefix) => value.startsWith(prefix))) {
      problems.push({
        field: name,
        message: `is a ${isTestMode ? 'live' : 'test'}-mode key, and the gateway is in ${isTestMode ? 'test' : 'live'} mode: use a key starting ${wanted.join(' or ')}`,
      });
    } else if (!wanted.some((prefix) => value.startsWith(prefix)) || !KEY_TEXT.test(value)) {
      problems.push({ field: name, message: `must be ${key.what} starting ${wanted.join(' or ')}` });
    }
  }
  const secret = settings.webhookSecret;
  if (typeof secret !== 'string' || secret.trim() === '') {
    problems.push({
      field: 'Settings.webhookSecret',
      message: "is required: the webhook endpoint's signing secret (whsec_…)",
    });
  } else if (!secret.startsWith('whsec_') || !KEY_TEXT.test(secret)) {
    problems.push({
      field: 'Settings.webhookSecret',
      message: "must be the webhook endpoint's signing secret, starting whsec_",
    });
  }
  return problems;
}

/** The settings of a gateway added through `stripeSettingsProblems`; a missing one is a setup error. */
export function readStripeSettings(settings: Readonly<Record<string, unknown>>): StripeSettings {
  const text = (field: keyof StripeSettings) => {
    const value = settings[field];
    if (typeof value !== 'string' || value === '') {
      throw new Error(`the Stripe gateway has no ${field} in its settings`);
    }
    return value;
  };
  return {
    secretKey: text('secretKey'),
    publishableKey: text('publishableKey'),
    webhookSecret: text('webhookSecret'),
  };
}
