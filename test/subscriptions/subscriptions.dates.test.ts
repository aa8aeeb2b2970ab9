import { describe, expect, it } from 'vitest';
import {
  fieldsOf,
  get,
  put,
  setColumns,
  setToday,
  sms,
  subscribe,
  subscribeFuture,
  TODAY,
  trialMonthly,
  trialPkg,
  useSubscriptionService,
  wire,
} from './subscriptions.fixtures.ts';

useSubscriptionService();

describe('PUT /v1/subscriptions/{id}/changestartdate', () => {
  it('moves the start with the trial’s end, the next invoice date and the first period’s usage', async () => {
    const s = await subscribeFuture({
      packageID: trialPkg.packageID,
      packageRateTermID: trialMonthly,
      numDaysBeforeToInv: 2,
      componentUsage: [{ componentID: sms.componentID, NumUnits: 6 }],
    });
    const res = await put(s.subscriptionID, 'changestartdate', { StartDate: '2026-05-10' });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const moved = await get(s.subscriptionID);
    expect(moved).toMatchObject({
      StartDate: wire('2026-05-10'),
      TrialEndDate: wire('2026-05-24'),
      comp_nextInvDate: wire('2026-05-08'),
      comp_Status: 'Future',
    });
    expect(moved.componentUsage[0].NumUnits).toBe(6);
    expect(moved.LastModified >= s.LastModified).toBe(true);
  });

  it('refuses once something has been billed (409)', async () => {
    const s = await subscribeFuture();
    await setColumns(s.subscriptionID, { period_count: 1, setup_billed: true, last_inv_date: '2026-03-10' });
    const res = await put(s.subscriptionID, 'changestartdate', { StartDate: '2026-04-05' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_billed');
  });

  it('refuses a start at or after the EndDate or leaving the sync date behind, and bad dates (422)', async () => {
    const s = await subscribeFuture({
      EndDate: '2026-06-01',
      isProRata: true,
      firstProrataSyncDate: '2026-04-15',
    });
    for (const StartDate of ['2026-06-01', '2026-04-20', '2026-03-14']) {
      expect(fieldsOf(await put(s.subscriptionID, 'changestartdate', { StartDate })), StartDate).toEqual([
        'StartDate',
      ]);
    }
    expect(fieldsOf(await put(s.subscriptionID, 'changestartdate', { StartDate: 'soon' }))).toEqual([
      'StartDate',
    ]);
    expect(fieldsOf(await put(s.subscriptionID, 'changestartdate', {}))).toEqual(['StartDate']);
    expect((await put(999999, 'changestartdate', { StartDate: TODAY })).status).toBe(404);
  });
});

describe('PUT /v1/subscriptions/{id}/changeenddate', () => {
  it('sets and clears the EndDate', async () => {
    const s = await subscribeFuture();
    expect((await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-09-01' })).status).toBe(204);
    expect(await get(s.subscriptionID)).toMatchObject({
      EndDate: wire('2026-09-01'),
      comp_nextInvDate: wire('2026-04-01'),
    });
    expect((await put(s.subscriptionID, 'changeenddate', { EndDate: null })).status).toBe(204);
    expect((await get(s.subscriptionID)).EndDate).toBeNull();
  });

  it('refuses an EndDate before today or on or before the StartDate, and a missing one (422)', async () => {
    const s = await subscribeFuture();
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-03-09' }))).toEqual([
      'EndDate',
    ]);
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-04-01' }))).toEqual([
      'EndDate',
    ]);
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', {}))).toEqual(['EndDate']);
    expect(fieldsOf(await put(s.subscriptionID, 'changeenddate', { EndDate: 'never' }))).toEqual(['EndDate']);
  });

  it('refuses to lengthen a subscription billed short to its EndDate, and allows shortening it', async () => {
    const s = await subscribeFuture({ EndDate: '2026-04-20' });
    // As the bill run leaves it: the one period, 2026-04-01 to the EndDate, billed.
    await setColumns(s.subscriptionID, {
      period_count: 1,
      setup_billed: true,
      last_inv_date: '2026-03-10',
      last_renew_date: '2026-04-01',
      next_renew_date: '2026-04-20',
      next_inv_date: null,
    });
    for (const EndDate of ['2026-06-01', null]) {
      const res = await put(s.subscriptionID, 'changeenddate', { EndDate });
      expect(res.status).toBe(409);
      expect(res.body.code).toBe('subscription_billed_to_end');
    }
    expect((await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-04-15' })).status).toBe(204);
    expect((await get(s.subscriptionID)).comp_nextInvDate).toBeNull();
  });

  it('refuses a change to an expired subscription (409)', async () => {
    const s = await subscribe({ EndDate: '2026-03-11' });
    setToday('2026-03-11');
    const res = await put(s.subscriptionID, 'changeenddate', { EndDate: '2026-05-01' });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_expired');
  });
});
