import type { FieldProblem } from '../../../errors.ts';

/**
 * A Paystack gateway's settings: its secret key (server calls, and the key Paystack signs its webhooks with) and
 * its public key (Inline JS in the capture frame). Paystack keys say their mode: `sk_test_`/`pk_test_` act on the
 * test integration, `sk_live_`/`pk_live_` move real money (docs/gateways/paystack.md, "Keys"). A gateway in test
 * mode (every gateway of a test account) must never hold a live key, nor a live one a test key.
 */
export interface PaystackSettings {
  secretKey: string;
  publicKey: string;
}

const KNOWN = ['secretKey', 'publicKey'];

const keyProblem = (
  settings: Readonly<Record<string, unknown>>,
  name: 'secretKey' | 'publicKey',
  prefix: 'sk' | 'pk',
  isTestMode: boolean,
): FieldProblem | undefined => {
  const field = `Settings.${name}`;
  const value = settings[name];
  const wanted = `${prefix}_${isTestMode ? 'test' : 'live'}_`;
  const other = `${prefix}_${isTestMode ? 'live' : 'test'}_`;
  if (typeof value !== 'string' || value.trim() === '') {
    return { field, message: `is required: the Paystack ${name === 'secretKey' ? 'secret' : 'public'} key` };
  }
  if (value.startsWith(other)) {
    const mode = isTestMode ? 'test' : 'live';
    return {
      field,
      message: `is a ${isTestMode ? 'live' : 'test'} key on a ${mode}-mode gateway: use ${wanted}…`,
    };
  }
  if (!value.startsWith(wanted) || value.length <= wanted.length) {
    return { field, message: `must be a Paystack key starting with ${wanted}` };
  }
  return undefined;
};

/** Every problem of the settings at once, each naming its field (`Settings.secretKey`). */
export function paystackSettingsProblems(
  settings: Readonly<Record<string, unknown>>,
  isTestMode: boolean,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const name of Object.keys(settings)) {
    if (!KNOWN.includes(name)) {
      problems.push({
        field: `Settings.${name}`,
        message: 'is not a Paystack setting (secretKey, publicKey)',
      });
    }
  }
  for (const problem of [
    keyProblem(settings, 'secretKey', 'sk', isTestMode),
    keyProblem(settings, 'publicKey', 'pk', isTestMode),
  ]) {
    if (problem) problems.push(problem);
  }
  return problems;
}

/** The settings as the driver uses them; empty keys when absent (every call then fails with Paystack's 401). */
export function paystackSettingsOf(settings: Readonly<Record<string, unknown>>): PaystackSettings {
  const text = (value: unknown) => (typeof value === 'string' ? value : '');
  return { secretKey: text(settings.secretKey), publicKey: text(settings.publicKey) };
}

/** The mode a key says it is for, or undefined for a key that says neither. */
export function keyMode(key: string): 'test' | 'live' | undefined {
  if (/^[sp]k_test_/.test(key)) return 'test';
  if (/^[sp]k_live_/.test(key)) return 'live';
  return undefined;
}
