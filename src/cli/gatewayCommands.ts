import fs from 'node:fs';
import type { Command } from 'commander';
import { ValidationError } from '../errors.ts';
import type { ServiceContext } from '../context.ts';
import type { Gateway } from '../modules/gateways/index.ts';

// What a command needs is imported when it runs (src/cli.ts): `billing --help` loads no service.
const runtime = () => import('./runtime.ts');
const gateways = () => import('../modules/gateways/index.ts');

/** The options of `gateway add`, as commander parses them. */
interface AddOptions {
  account: number;
  type: string;
  name: string;
  testMode?: boolean;
  primary?: boolean;
  settings?: string;
  settingsFile?: string;
  json?: boolean;
}

/** What a provider said of a gateway's keys; undefined when the gateway has no provider to try them with. */
type SettingsCheck = { outcome: 'ok'; detail: string } | { outcome: 'refused'; message: string } | undefined;

/** `billing gateway …`: an account's payment gateways, their keys tried with their providers (docs/gateways.md). */
export function registerGatewayCommands(program: Command, positiveInteger: (value: string) => number): void {
  const gateway = program.command('gateway').description("manage an account's payment gateways");
  gateway
    .command('add')
    .description('add a gateway to an account')
    .requiredOption('--account <id>', 'account id', positiveInteger)
    // The types are listed by the refusal of an unknown one; naming them here would load the gateway module for --help.
    .requiredOption('--type <type>', 'gateway type: test, manual, bankfile, paystack, stripe or netcash')
    .requiredOption('--name <friendly>', 'the name the account knows it by (FriendlyName)')
    .option('--test-mode', 'in test mode (always so for test gateways and in test accounts)')
    .option('--primary', 'make it the primary gateway (the others stop being primary)')
    .option(
      '--settings <json>',
      'credentials or simulator settings, a JSON object; sealed at rest, never shown',
    )
    .option(
      '--settings-file <path>',
      'the settings from a file (- for standard input), kept out of shell history',
    )
    .option('--json', 'print the gateway as one JSON object')
    .action(addGateway);
  gateway
    .command('check')
    .description("try a gateway's settings (its keys) with its provider, and say in words what is wrong")
    .argument('<gatewayId>', 'gateway id', positiveInteger)
    .action(checkGateway);
  gateway
    .command('settings')
    .description("replace a gateway's settings (new keys), then try them with its provider")
    .argument('<gatewayId>', 'gateway id', positiveInteger)
    .option('--settings <json>', 'the new settings, a JSON object; sealed at rest, never shown')
    .option('--settings-file <path>', 'the new settings from a file (- for standard input)')
    .action(replaceGatewaySettings);
  gateway
    .command('list')
    .description("list an account's gateways (their settings are never shown)")
    .requiredOption('--account <id>', 'account id', positiveInteger)
    .option('--json', 'print one JSON array')
    .action(listAccountGateways);
  gateway
    .command('enable')
    .description('enable a gateway: it may be used again')
    .argument('<gatewayId>', 'gateway id', positiveInteger)
    .action(enableGateway);
  gateway
    .command('disable')
    .description('disable a gateway: it is kept, but nothing new may use it')
    .argument('<gatewayId>', 'gateway id', positiveInteger)
    .action(disableGateway);
  gateway
    .command('primary')
    .description("make a gateway its account's primary gateway (the others stop being primary)")
    .argument('<gatewayId>', 'gateway id', positiveInteger)
    .action(makeGatewayPrimary);
}

/**
 * `gateway add`: the gateway added (or, added disabled before, tried again) with its keys tried, printed, and what
 * its provider said of them.
 */
async function addGateway(options: AddOptions): Promise<void> {
  const settings = settingsGiven(options);
  const { toGatewayDto } = await gateways();
  const { gateway: added, check, retried } = await addCheckedGatewayOf(options, settings);
  const how = retried ? 'Gateway tried again' : 'Gateway added';
  if (options.json) console.log(JSON.stringify(toGatewayDto(added)));
  else console.log(`${how} to account ${options.account}:\n${gatewayLine(added)}`);
  if (check?.outcome === 'unreachable' || (check?.outcome === 'refused' && !added.isEnabled)) {
    reportDisabledAdd(added.id, check.message);
    return;
  }
  reportSettingsCheck(added.id, check);
}

/** The gateway the options describe, added to their account with its settings tried (addCheckedGateway). */
async function addCheckedGatewayOf(options: AddOptions, settings: unknown) {
  const { withStorage, accountContext, testGatewayPolicy } = await runtime();
  const { addCheckedGateway } = await gateways();
  return withStorage(async (storage) => {
    const ctx = await accountContext(storage, options.account, 'billing gateway add');
    return addCheckedGateway(
      ctx,
      {
        type: options.type,
        friendlyName: options.name,
        isTestMode: options.testMode,
        isPrimary: options.primary,
        settings,
      },
      testGatewayPolicy(),
    );
  });
}

/** `gateway check`: the gateway's keys tried with its provider. */
async function checkGateway(gatewayId: number): Promise<void> {
  const { checkGatewaySettings, getGateway } = await gateways();
  const check = await withGatewayAccount(gatewayId, 'billing gateway check', async (ctx) =>
    checkGatewaySettings(ctx, await getGateway(ctx, gatewayId)),
  );
  if (check === undefined) console.log(`Gateway ${gatewayId} has no provider to try its settings with.`);
  reportSettingsCheck(gatewayId, check);
}

/** `gateway settings`: the gateway's keys replaced, then tried with its provider. */
async function replaceGatewaySettings(
  gatewayId: number,
  options: { settings?: string; settingsFile?: string },
): Promise<void> {
  const settings = settingsGiven(options);
  const { checkGatewaySettings, setGatewaySettings } = await gateways();
  const check = await withGatewayAccount(gatewayId, 'billing gateway settings', async (ctx) =>
    checkGatewaySettings(ctx, await setGatewaySettings(ctx, gatewayId, settings)),
  );
  console.log(`Gateway ${gatewayId}'s settings replaced.`);
  reportSettingsCheck(gatewayId, check);
}

/** `gateway list`: every gateway of the account, a line each or one JSON array. */
async function listAccountGateways(options: { account: number; json?: boolean }): Promise<void> {
  const { withStorage, accountContext } = await runtime();
  const { listGateways, toGatewayDto } = await gateways();
  const found = await withStorage(async (storage) => {
    const ctx = await accountContext(storage, options.account);
    const all: Gateway[] = [];
    for (let offset = 0; ; offset += 200) {
      const page = await listGateways(ctx, { limit: 200, offset });
      all.push(...page);
      if (page.length < 200) return all;
    }
  });
  if (options.json) console.log(JSON.stringify(found.map(toGatewayDto)));
  else console.log(found.length ? found.map(gatewayLine).join('\n') : 'No gateways.');
}

/** `gateway enable`. */
async function enableGateway(gatewayId: number): Promise<void> {
  const { setGatewayEnabled } = await gateways();
  const { testGatewayPolicy } = await runtime();
  await withGatewayAccount(gatewayId, 'billing gateway enable', (ctx) =>
    setGatewayEnabled(ctx, gatewayId, true, testGatewayPolicy()),
  );
  console.log(`Gateway ${gatewayId} enabled.`);
}

/** `gateway disable`, with a warning when it leaves the account without a usable primary gateway. */
async function disableGateway(gatewayId: number): Promise<void> {
  const { setGatewayEnabled } = await gateways();
  const disabled = await withGatewayAccount(gatewayId, 'billing gateway disable', (ctx) =>
    setGatewayEnabled(ctx, gatewayId, false),
  );
  console.log(`Gateway ${gatewayId} disabled.`);
  if (disabled.isPrimary) {
    console.log(
      'It is the primary gateway: the account has no usable primary gateway until it is enabled again or ' +
        'another one is made primary (billing gateway primary ID).',
    );
  }
}

/** `gateway primary`. */
async function makeGatewayPrimary(gatewayId: number): Promise<void> {
  const { setPrimaryGateway } = await gateways();
  const { testGatewayPolicy } = await runtime();
  const accountId = await withGatewayAccount(gatewayId, 'billing gateway primary', async (ctx) => {
    await setPrimaryGateway(ctx, gatewayId, testGatewayPolicy());
    return ctx.account.id;
  });
  console.log(`Gateway ${gatewayId} is now the primary gateway of account ${accountId}.`);
}

/**
 * A gateway's settings as an operator gives them: `--settings <json>`, or `--settings-file <path>` (`-` for standard
 * input), which keeps keys out of the shell's history and the process list. The text is never echoed back.
 */
function settingsGiven(options: { settings?: string; settingsFile?: string }): unknown {
  if (options.settings !== undefined && options.settingsFile !== undefined) {
    throw ValidationError.field('Settings', 'give --settings or --settings-file, not both');
  }
  const text =
    options.settingsFile === undefined
      ? options.settings
      : fs.readFileSync(options.settingsFile === '-' ? 0 : options.settingsFile, 'utf8');
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw ValidationError.field('Settings', 'must be a JSON object');
  }
}

/** One line of `gateway list`: id, type, name and state. */
function gatewayLine(gateway: Gateway): string {
  const accepts = [gateway.acceptsCreditCard && 'cards', gateway.acceptsBankAccount && 'bank debits'].filter(
    Boolean,
  );
  const state = [
    gateway.isPrimary && 'primary',
    gateway.isEnabled ? 'enabled' : 'disabled',
    !gateway.isActive && 'inactive',
    gateway.isTestMode && 'test mode',
    gateway.isManualRecon && 'manual reconciliation',
    accepts.length > 0 && `accepts ${accepts.join(' and ')}`,
  ].filter(Boolean);
  return `${gateway.id}\t${gateway.type}\t${gateway.friendlyName}\t${state.join(', ')}`;
}

/** Runs a gateway use case for the account the gateway belongs to (operators name gateways by id alone). */
async function withGatewayAccount<T>(
  gatewayId: number,
  operation: string,
  work: (ctx: ServiceContext) => Promise<T>,
): Promise<T> {
  const { withStorage, accountContext } = await runtime();
  const { getGatewayAccountId } = await gateways();
  return withStorage(async (storage) =>
    work(await accountContext(storage, await getGatewayAccountId(storage.db, gatewayId), operation)),
  );
}

/**
 * A gateway added disabled because its provider did not take its settings (docs/operations.md, "Gateways"): why,
 * and the two ways on. The same command again takes this gateway over rather than adding a second.
 */
function reportDisabledAdd(gatewayId: number, message: string): void {
  console.error(
    `Gateway ${gatewayId} was added disabled, and is not used for anything: ${message}. ` +
      'Run the same command again once that is fixed (it tries this gateway again, and adds no second one), ' +
      `or replace its keys with: billing gateway settings ${gatewayId} --settings '<json>', then ` +
      `billing gateway enable ${gatewayId}`,
  );
  process.exitCode = 1;
}

/**
 * What the provider said of a gateway's keys, on standard error: a refusal sets the exit code (the gateway is kept:
 * `billing gateway settings` replaces its keys, `billing gateway check` tries them again).
 */
function reportSettingsCheck(gatewayId: number, check: SettingsCheck): void {
  if (check === undefined) return;
  if (check.outcome === 'ok') {
    console.error(`Gateway ${gatewayId}'s settings work: ${check.detail}.`);
    return;
  }
  console.error(
    `Gateway ${gatewayId}'s provider refused its settings: ${check.message}. ` +
      `Replace them with: billing gateway settings ${gatewayId} --settings '<json>'`,
  );
  process.exitCode = 1;
}
