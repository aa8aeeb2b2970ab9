import { describe, expect, it } from 'vitest';
import { createCustomer, createPlan, movableClock, ok, subscribe } from '../helpers/billing.ts';
import { eventsOf } from '../helpers/resourceEvents.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';
import { deliveredTo } from '../collections/notices.fixtures.ts';
import { advanceToDay } from '../helpers/clock.ts';

// The customer is told of a pause (docs/subscriptions.md, "Pause and resume"): confirmed when it is made, resuming
// soon three days before a dated resume, resumed on the day; each once, unless the account sends no pause notices
// (SendPauseNotices). Every message is read from a real SMTP receiver.
const clock = movableClock('2026-01-01T10:00:00.000Z');
const t = useTestService({ clock, smtp: true });
const { smtp } = t;

let sequence = 0;

/** A test account (UTC) on 1 January 2026, a customer with an e-mail address subscribed that day. */
async function subscribed(settings: Record<string, unknown> = {}) {
  clock.set('2026-01-01T10:00:00.000Z');
  const as = await t.newAccount('Pause notices', { timeZone: 'UTC', isTest: true });
  await ok(as, 'PUT', '/v1/account', { LegalName: 'Pause Shop Ltd', ...settings });
  sequence += 1;
  const email = `grace${sequence}.${as.accountId}@example.com`;
  const customerId = await createCustomer(as, { Name: 'Grace', LastName: 'Hopper', Email: email });
  const plan = await createPlan(as, { chargePrice: 30 });
  const sub = await subscribe(as, customerId, plan);
  return { as, email, id: sub.subscriptionID as number, path: `/v1/subscriptions/${sub.subscriptionID}` };
}

const pauseMails = async (as: TestAccount, email: string) =>
  (await deliveredTo(t, smtp, as.accountId, email))
    .filter((m) => /subscription (is paused|resumes on|has resumed)/.test(m.subject))
    .map((m) => m.subject.replace(/Plan \d+/, 'Plan'));

describe('pause notices', () => {
  it('tells the pause when made, the resume three days before, and the resume on the day, each once', async () => {
    const { as, email, path } = await subscribed();
    await ok(as, 'PUT', `${path}/pause`, { ResumeDate: '2026-03-15' });
    const [confirmed] = (await deliveredTo(t, smtp, as.accountId, email)).filter((m) =>
      m.subject.endsWith('subscription is paused'),
    );
    // Credit none: January is served, the pause runs from 1 February.
    expect(confirmed!.text).toMatch(
      /Your subscription to Plan \d+ is paused from 1 Feb\w* 2026 until 15 Mar\w* 2026\./,
    );
    expect(confirmed!.text).toContain('Nothing is invoiced while it is paused.');
    await advanceToDay(as, '2026-02-01');
    await advanceToDay(as, '2026-03-11');
    expect(await pauseMails(as, email)).toEqual(['Your Plan subscription is paused']);
    // Three days before the resume.
    await advanceToDay(as, '2026-03-12');
    await advanceToDay(as, '2026-03-13');
    await advanceToDay(as, '2026-03-15');
    await advanceToDay(as, '2026-03-16');
    const mails = await pauseMails(as, email);
    expect(mails).toEqual([
      'Your Plan subscription is paused',
      expect.stringMatching(/^Your Plan subscription resumes on 15 Mar\w* 2026$/),
      'Your Plan subscription has resumed',
    ]);
  });

  it('tells a resume made now at once, and tells nothing when the account sends no pause notices', async () => {
    const told = await subscribed();
    await ok(told.as, 'PUT', `${told.path}/pause`, { Credit: 'prorata' });
    await advanceToDay(told.as, '2026-02-10');
    await ok(told.as, 'PUT', `${told.path}/resume`, {});
    expect(await pauseMails(told.as, told.email)).toEqual([
      'Your Plan subscription is paused',
      'Your Plan subscription has resumed',
    ]);

    const quiet = await subscribed({ SendPauseNotices: false });
    await ok(quiet.as, 'PUT', `${quiet.path}/pause`, { Credit: 'prorata', ResumeDate: '2026-01-03' });
    await advanceToDay(quiet.as, '2026-01-03');
    expect(await pauseMails(quiet.as, quiet.email)).toEqual([]);
    const types = (await eventsOf(quiet.as, 'subscription', quiet.id)).map((e) => e.type);
    expect(types).toEqual(
      expect.arrayContaining(['subscription.paused', 'subscription.pause_will_end', 'subscription.resumed']),
    );
  });
});
