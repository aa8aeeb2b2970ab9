/**
 * The service side of the `billing` command: storage, an account's context, secrets. A command imports this when
 * it runs (src/cli.ts), so `billing --help` and `billing --version` load none of it: no Kysely, no database driver.
 */
import os from 'node:os';
import type { FastifyBaseLogger } from 'fastify';
import { systemClock } from '../clock.ts';
import { loadConfig } from '../config.ts';
import { contextFor } from '../context.ts';
import type { Actor, ServiceContext } from '../context.ts';
import { createLogger } from '../logger.ts';
import { getAccount } from '../modules/auth/index.ts';
import type { Account } from '../modules/auth/index.ts';
import { createSecretBox, loadEncryptionKey } from '../security/secretBox.ts';
import type { SecretBox } from '../security/secretBox.ts';
import { openStorage } from '../storage/database.ts';
import type { Storage } from '../storage/database.ts';
import { migrateToLatest } from '../storage/migrate.ts';
import { modulePorts } from '../modulePorts.ts';

/** The modules' ports, for a command's own deps (src/modulePorts.ts). */
export { modulePorts };

/** Runs a command against the configured database, migrated to the latest schema unless told otherwise. */
export async function withStorage<T>(
  work: (storage: Storage) => Promise<T>,
  { migrate = true } = {},
): Promise<T> {
  const storage = openStorage(loadConfig().database);
  try {
    if (migrate) await migrateToLatest(storage.db, { sealer: lazySecretBox });
    return await work(storage);
  } finally {
    await storage.close();
  }
}

/** The encryption key is loaded (and on first use created) only by a command that seals or opens something. */
export function lazySecretBox(): SecretBox {
  let box: SecretBox | undefined;
  const open = () => {
    const config = loadConfig();
    return (box ??= createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir)));
  };
  return {
    seal: (plain) => open().seal(plain),
    open: (sealed) => open().open(sealed),
    fingerprint: (text) => open().fingerprint(text),
  };
}

/** The key the configuration names, loaded now: for commands that open sealed data in any case. */
export function secretBox(): SecretBox {
  const config = loadConfig();
  return createSecretBox(loadEncryptionKey(config.encryptionKey, config.dataDir));
}

/** Standard output is a command's answer (JSON with --json); logs go to standard error. */
export function commandLogger(level = loadConfig().logLevel) {
  return createLogger(level, process.stderr);
}

/** Who runs the command, as the audit log records it: the operating-system user at this host. */
function operator(): string {
  let user: string;
  try {
    user = os.userInfo().username;
  } catch {
    // A container user without a passwd entry has no name to read.
    user = process.env.USER ?? process.env.LOGNAME ?? String(process.getuid?.() ?? 'unknown');
  }
  return `${user}@${os.hostname()}`;
}

/** The audit log's actor of a command that changes an account; `operation` is the command, without secrets. */
export function cliActor(operation: string): Actor {
  return { kind: 'cli', clientAddress: operator(), operation };
}

/** Whether live accounts may use the built-in test gateway (TEST_GATEWAY_ON_LIVE_ACCOUNTS; docs/gateways.md). */
export function testGatewayPolicy(): { testGatewayOnLiveAccounts: boolean } {
  return { testGatewayOnLiveAccounts: loadConfig().testGatewayOnLiveAccounts };
}

/**
 * What a use case needs to act for one account, as an API request would give it. A command that changes the
 * account names its operation, so that its changes are audited as the CLI's.
 */
export async function accountContext(
  storage: Storage,
  accountId: number,
  operation?: string,
): Promise<ServiceContext> {
  const account: Account = await getAccount(storage.db, accountId);
  const { publicUrl } = loadConfig();
  return contextFor(
    {
      db: storage.db,
      clock: systemClock,
      wallClock: systemClock,
      ports: modulePorts(),
      log: commandLogger() as FastifyBaseLogger,
      secrets: lazySecretBox(),
      ...(publicUrl ? { publicUrl } : {}),
      // No mailQueued: the CLI runs no mail worker; a running server picks queued mail up at its next round.
      ...(operation === undefined ? {} : { actor: cliActor(operation) }),
    },
    account,
  );
}
