import { expect } from 'vitest';
import { ok } from './billing.ts';
import type { TestAccount } from './service.ts';

// Dates and test clocks as the tests write them: calendar dates as `YYYY-MM-DD`, instants as ISO strings in UTC.

export const DAY_MS = 86_400_000;

/** The calendar date `days` after `date` (before it, if negative). */
export const plusDays = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The instant `days` after the instant `iso`. */
export const instantPlusDays = (iso: string, days: number): string =>
  new Date(Date.parse(iso) + days * DAY_MS).toISOString();

/** Midnight UTC of a calendar date, as the wire shows a date of an account in UTC. */
export const midnightUtc = (date: string): string => `${date}T00:00:00.000Z`;

/** Moves the account's test clock to the instant `to` (POST /v1/test-clock/advance), running what falls due on the way. */
export const advanceClock = (as: TestAccount, to: string) =>
  ok(as, 'POST', '/v1/test-clock/advance', { To: to }, 200);

/** advanceClock to `at`, an instant, or a calendar date: 10:00 UTC on it, after a UTC account's bill run of the day. */
export const advanceToDay = (as: TestAccount, at: string) =>
  advanceClock(as, at.length === 10 ? `${at}T10:00:00Z` : at);

/** advanceToDay to 10:00 UTC on `date`, expecting no subscription parked on the way. */
export async function advanceBilling(as: TestAccount, date: string): Promise<void> {
  const moved = await advanceToDay(as, date);
  expect(moved.Billed.parked, 'parked subscriptions').toBe(0);
}
