import type { FastifyBaseLogger } from 'fastify';
import { expect } from 'vitest';
import type { Clock } from '../../src/clock.ts';
import { systemClock } from '../../src/clock.ts';
import type { ServiceContext } from '../../src/context.ts';
import { ValidationError } from '../../src/errors.ts';
import type { FieldProblem } from '../../src/errors.ts';
import { getAccount } from '../../src/modules/auth/index.ts';
import { usageStorageCap } from '../../src/modules/usage/index.ts';
import type { TestService } from './service.ts';
import { modulePorts } from '../../src/modulePorts.ts';

/**
 * A use-case context for one account of a test service, as a request of that account would get it: for calling
 * module functions that no endpoint exposes yet (adding gateways) and those other modules call.
 */
export async function accountContext(
  t: TestService,
  accountId: number,
  clock: Clock = systemClock,
  wallClock: Clock = systemClock,
): Promise<ServiceContext> {
  return {
    ports: modulePorts(),
    account: await getAccount(t.service.storage.db, accountId),
    db: t.service.storage.db,
    clock,
    wallClock,
    log: t.service.log as unknown as FastifyBaseLogger,
    secrets: t.service.secrets,
    mailQueued: () => {},
    usageStorage: usageStorageCap(),
    memory: t.service.memory,
  };
}

/**
 * The wall clock of the next collection run, a minute from now: an attempt started by a run just before is then
 * strictly older than the run's stale limit, even when both fall in one millisecond.
 */
export const aMinuteLater: Clock = { now: () => new Date(Date.now() + 60_000) };

/** The fields a module function's refusal names: it must fail with a ValidationError (the test fails otherwise). */
export async function refusedFields(call: Promise<unknown>): Promise<FieldProblem[]> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return (error as ValidationError).fields;
}
