import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { contextFor } from '../context.ts';
import { PASSWORD_COST_LOG2 } from '../security/passwords.ts';
import type { Ports, ServiceContext } from '../context.ts';
import { getAccount, getSellerDetails, listAccountIds } from '../modules/auth/index.ts';
import type { Account } from '../modules/auth/index.ts';
import { listCurrencies } from '../modules/catalogue/index.ts';
import { checkGatewaySettings, findPrimaryGateway, gatewaySettings } from '../modules/gateways/index.ts';
import type { Gateway } from '../modules/gateways/index.ts';
import type { SecretBox } from '../security/secretBox.ts';
import type { Db } from '../storage/database.ts';

/**
 * `billing doctor`: what a live deployment needs and lacks, each missing item said in words (docs/going-live.md,
 * "Checking the deployment"). Deployment-wide items first, then each live account's.
 */
export interface DoctorDeps {
  db: Db;
  config: Pick<
    Config,
    | 'publicUrl'
    | 'smtpUrl'
    | 'mailFrom'
    | 'encryptionKey'
    | 'billingIntervalMs'
    | 'testGatewayOnLiveAccounts'
    | 'passwordCostLog2'
  >;
  clock: Clock;
  wallClock: Clock;
  secrets: SecretBox;
  log: FastifyBaseLogger;
  ports: Ports;
  /** How payment providers are reached: `fetch` unless a test hands in a provider's simulator. */
  providerFetch?: typeof fetch;
  /** How the service's own public address is reached, as a provider reaches it: `fetch` unless a test says. */
  publicFetch?: typeof fetch;
}

export interface DoctorOptions {
  /** Only this account (it must be live). */
  accountId?: number;
  /** The operator says cron runs `billing run` (BILLING_INTERVAL_MS=0): the schedule is not missing. */
  billedByCron?: boolean;
}

export interface DoctorReport {
  /** The live accounts checked. */
  accounts: number[];
  /** Each missing item, in words. */
  missing: string[];
}

/** What a webhook of each provider is signed with, in its gateway's settings (docs/gateways/*.md, "Webhooks"). */
const WEBHOOK_SIGNING: Record<string, { setting: string; words: string }> = {
  paystack: { setting: 'secretKey', words: 'its secret key, which Paystack signs webhooks with' },
  stripe: { setting: 'webhookSecret', words: "the endpoint's signing secret (webhookSecret, whsec_…)" },
};

export async function checkDeployment(deps: DoctorDeps, options: DoctorOptions = {}): Promise<DoctorReport> {
  const missing = deploymentProblems(deps.config, options);
  const accounts = await liveAccounts(deps.db, options.accountId);
  if (options.accountId !== undefined && accounts.length === 0) {
    missing.push(
      `Account ${options.accountId} is a test account, which never moves money: check its live account ` +
        `(billing account go-live ${options.accountId} makes one).`,
    );
  } else if (accounts.length === 0) {
    missing.push('There is no live account yet: make one from a test account with billing account go-live.');
  }
  for (const account of accounts) missing.push(...(await accountProblems(deps, account)));
  return { accounts: accounts.map((account) => account.id), missing };
}

/** The settings every process of a live deployment needs (docs/going-live.md, "The deployment"). */
function deploymentProblems(config: DoctorDeps['config'], options: DoctorOptions): string[] {
  const missing: string[] = [];
  if (!config.publicUrl) {
    missing.push(
      'PUBLIC_URL is not set: e-mails go without links to the pay page and the portal, and providers cannot be ' +
        'given a webhook URL. Set it to the https address customers reach the service at.',
    );
  } else if (!config.publicUrl.startsWith('https://')) {
    missing.push(
      `PUBLIC_URL is ${config.publicUrl}: customers' browsers and providers must reach the service over https.`,
    );
  }
  if (!config.smtpUrl) {
    missing.push(
      'SMTP_URL is not set: no e-mail is sent (invoices, receipts, reminders stay in the outbox).',
    );
  }
  if (config.mailFrom.endsWith('@localhost')) {
    missing.push(
      `MAIL_FROM is ${config.mailFrom}: set it to an address of your domain that your mail server may send from.`,
    );
  }
  if (!config.encryptionKey) {
    missing.push(
      'ENCRYPTION_KEY is not set: the key sealing gateway keys, webhook secrets and bank accounts is only the file ' +
        'encryption.key in DATA_DIR, beside the database. Copy it somewhere kept apart from the database and its ' +
        'backups, and set ENCRYPTION_KEY to it on every process: losing it loses what it sealed.',
    );
  }
  if (config.testGatewayOnLiveAccounts) {
    missing.push(
      'TEST_GATEWAY_ON_LIVE_ACCOUNTS is true: live accounts may collect through the built-in test gateway, which ' +
        'moves no money (docs/gateways.md, "Live means live"). Unset it where real customers are billed.',
    );
  }
  if (config.passwordCostLog2 < PASSWORD_COST_LOG2) {
    missing.push(
      `PASSWORD_COST is ${config.passwordCostLog2}: portal passwords are hashed below OWASP's scrypt cost ` +
        `(${PASSWORD_COST_LOG2}), which only the service's own tests should do. Unset it.`,
    );
  }
  if (config.billingIntervalMs === 0 && !options.billedByCron) {
    missing.push(
      'BILLING_INTERVAL_MS is 0: the server does not run the bill run. Schedule billing run at least daily (cron), ' +
        'then say so with billing doctor --billed-by-cron; or unset BILLING_INTERVAL_MS.',
    );
  }
  return missing;
}

async function liveAccounts(db: Db, accountId: number | undefined): Promise<Account[]> {
  const ids = accountId === undefined ? await listAccountIds(db) : [accountId];
  const accounts = await Promise.all(ids.map((id) => getAccount(db, id)));
  return accounts.filter((account) => !account.isTest);
}

/** A live account's gateway, its keys and webhooks, and where its staff are told. */
async function accountProblems(deps: DoctorDeps, account: Account): Promise<string[]> {
  const ctx = contextFor(deps, account);
  const name = `Account ${account.id} (${account.name})`;
  const missing: string[] = [];
  const currencies = (await listCurrencies(ctx)).map((currency) => currency.code).join(', ');
  const gateway = await findPrimaryGateway(ctx);
  if (!gateway) {
    missing.push(
      `${name} has no usable primary gateway to collect ${currencies} with: add a live one with its keys ` +
        `(billing gateway add --account ${account.id} --primary …).`,
    );
  } else if (gateway.type === 'test' || gateway.isTestMode) {
    missing.push(
      `${name}'s primary gateway ${gateway.id} (${gateway.friendlyName}) is ` +
        `${gateway.type === 'test' ? 'the built-in test gateway' : 'in test mode'}: it moves no money for ` +
        `${currencies}. Add a live gateway with its live keys and make it primary.`,
    );
  } else {
    missing.push(...(await gatewayProblems(deps, ctx, name, gateway)));
  }
  const staff = account.collectionLoop.staffEmail ?? (await getSellerDetails(ctx)).email;
  if (!staff) {
    missing.push(
      `${name} has no staff address: problems with collections reach no one. Set StaffEmail or ContactEmail ` +
        `(PUT /v1/account, or billing account set ${account.id} --contact-email …).`,
    );
  }
  return missing;
}

/** The provider's own check of the keys, the webhook's signing and its URL as the provider will call it. */
async function gatewayProblems(
  deps: DoctorDeps,
  ctx: ServiceContext,
  name: string,
  gateway: Gateway,
): Promise<string[]> {
  const missing: string[] = [];
  // A provider that cannot be asked is a missing item too, said as such: the rest is still checked.
  const check = await checkGatewaySettings(ctx, gateway).catch((error: unknown) => ({
    outcome: 'unreachable' as const,
    message: error instanceof Error ? error.message : String(error),
  }));
  if (check?.outcome === 'unreachable') {
    missing.push(
      `${name}'s gateway ${gateway.id} (${gateway.type}): its provider could not be asked about its keys ` +
        `(${check.message}): check that this machine reaches it.`,
    );
  } else if (check?.outcome === 'refused') {
    missing.push(
      `${name}'s gateway ${gateway.id} (${gateway.type}): its provider refused its keys: ${check.message}.`,
    );
  }
  const signing = WEBHOOK_SIGNING[gateway.type];
  if (!signing) return missing;
  const settings = await gatewaySettings(ctx, gateway);
  if (typeof settings[signing.setting] !== 'string' || settings[signing.setting] === '') {
    missing.push(`${name}'s gateway ${gateway.id} (${gateway.type}) has no ${signing.words}: set it.`);
  }
  if (deps.config.publicUrl) {
    const problem = await webhookUrlProblem(
      deps,
      `${deps.config.publicUrl}/gateway-webhooks/${gateway.token}`,
    );
    if (problem) missing.push(`${name}'s gateway ${gateway.id} (${gateway.type}): ${problem}`);
  }
  return missing;
}

/**
 * Posts an unsigned body to the webhook URL as the provider will call it: this service answers it with its own
 * refusal (400 `webhook_signature_invalid`, changing nothing), which proves the address reaches it; anything else
 * (no answer, a proxy's page, another service) is said.
 */
async function webhookUrlProblem(deps: DoctorDeps, url: string): Promise<string | undefined> {
  const reach = deps.publicFetch ?? fetch;
  try {
    const answer = await reach(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await answer.json().catch(() => undefined)) as { code?: string } | undefined;
    if (answer.status === 400 && body?.code === 'webhook_signature_invalid') return undefined;
    return `its webhook URL ${url} answered ${answer.status}, not this service: check the proxy in front of it.`;
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    return `its webhook URL ${url} cannot be reached (${why}): the provider will not reach it either.`;
  }
}
