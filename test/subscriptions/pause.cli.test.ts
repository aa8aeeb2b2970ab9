import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killAll, killTransient, runCli } from '../helpers/cli.ts';
import { createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { useTestService } from '../helpers/testService.ts';

// `billing subscription pause|resume ID` (docs/subscriptions.md, "Pause and resume"), a real child process on the
// service's database: the API's own use cases, for support staff.

const t = useTestService();
afterEach(() => killTransient());
afterAll(async () => {
  await killAll();
});

describe('billing subscription pause|resume', () => {
  it('pauses until a date and resumes on its first day, as the API does; refuses what the API refuses', async () => {
    const as = await t.newAccount('CLI pause');
    const plan = await createPlan(as, { chargePrice: 30 });
    const customerId = await createCustomer(as);
    const sub = await subscribe(as, customerId, plan);
    const id = String(sub.subscriptionID);
    const account = ['--account', String(as.accountId)];
    const read = () => ok(as, 'GET', `/v1/subscriptions/${id}`);
    const today = ((await read()).StartDate as string).slice(0, 10);

    const paused = await runCli(
      ['subscription', 'pause', id, ...account, '--credit', 'prorata', '--resume-date', '2099-01-01'],
      t.env,
      60_000,
    );
    expect(paused.code, paused.stderr).toBe(0);
    expect(paused.stdout).toBe(
      `Subscription ${id} is Paused: paused from ${today} until 2099-01-01 (resume_day).\n`,
    );
    expect((await read()).comp_Status).toBe('Paused');

    const again = await runCli(['subscription', 'pause', id, ...account], t.env, 60_000);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain('is already paused');

    // Resumed on the pause's first day: the pause is withdrawn, the credited days billed again.
    const resumed = await runCli(['subscription', 'resume', id, ...account], t.env, 60_000);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(`Subscription ${id} is not paused (Active).\n`);
    expect((await read()).comp_Status).toBe('Active');

    const notPaused = await runCli(['subscription', 'resume', id, ...account], t.env, 60_000);
    expect(notPaused.code).not.toBe(0);
    expect(notPaused.stderr).toContain('is not paused');
  });

  it('resume --wait-for-payment schedules a resume that waits for its invoice to be paid', async () => {
    const as = await t.newAccount('CLI resume when paid');
    const plan = await createPlan(as, { chargePrice: 30 });
    const customerId = await createCustomer(as);
    const id = String((await subscribe(as, customerId, plan)).subscriptionID);
    const account = ['--account', String(as.accountId)];
    const read = () => ok(as, 'GET', `/v1/subscriptions/${id}`);
    const today = ((await read()).StartDate as string).slice(0, 10);
    await ok(as, 'PUT', `/v1/subscriptions/${id}/pause`, { Credit: 'prorata' });
    // A manual payer: the resumption invoice is voided unpaid the day after the resume day.
    const resumed = await runCli(
      ['subscription', 'resume', id, ...account, '--resume-date', '2099-01-01', '--wait-for-payment'],
      t.env,
      60_000,
    );
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toBe(
      `Subscription ${id} is Paused: paused from ${today} until 2099-01-01 (resume_day), when its invoice is paid ` +
        'by 2099-01-02.\n',
    );
    expect(await read()).toMatchObject({ ResumeWaitsForPayment: true, ResumePaidDate: null });
  });
});
