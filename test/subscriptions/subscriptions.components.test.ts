import { describe, expect, it } from 'vitest';
import {
  createComponent,
  fieldsOf,
  get,
  put,
  setColumns,
  setToday,
  sms,
  subscribe,
  subscribeFuture,
  t,
  useSubscriptionService,
  zarOnly,
} from './subscriptions.fixtures.ts';

useSubscriptionService();

describe('PUT /v1/subscriptions/{id}/components/modify', () => {
  it('adds, moves to another version and removes components: the list is the whole set', async () => {
    const extra = await createComponent();
    const v2 = (
      await t.request('POST', `/v1/components/${sms.componentID}/versions`, {
        body: {
          VersionName: 'Cheaper',
          isActive: true,
          isDefault: false,
          ComponentVersionCurrencies: [
            { CurrencyCode: 'USD', ComponentBracketPrices: [{ Price: 0.1, QtyFrom: 1 }] },
          ],
        },
      })
    ).body;
    const s = await subscribe({ componentUsage: [{ componentID: extra.componentID }] });
    const res = await put(s.subscriptionID, 'components/modify', {
      componentUsage: [
        { componentID: sms.componentID, componentVersionNumber: 2, NumUnits: 4, Memo: 'set up' },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(res.text).toBe('');
    expect((await get(s.subscriptionID)).componentUsage).toEqual([
      {
        componentID: sms.componentID,
        componentVersionID: v2.componentVersionID,
        componentVersionNumber: 2,
        Memo: 'set up',
        NumUnits: 4,
        isSetUnits: true,
      },
    ]);
    // A bare list is accepted; a component named without a version keeps its own.
    expect(
      (await put(s.subscriptionID, 'components/modify', [{ componentID: sms.componentID }])).status,
    ).toBe(204);
    const kept = (await get(s.subscriptionID)).componentUsage;
    expect(kept).toEqual([
      expect.objectContaining({ componentVersionNumber: 2, NumUnits: 4, Memo: 'set up' }),
    ]);
    expect(
      (
        await put(s.subscriptionID, 'components/modify', [
          { componentID: sms.componentID, componentVersionNumber: 1 },
        ])
      ).status,
    ).toBe(204);
    expect((await get(s.subscriptionID)).componentUsage[0].componentVersionNumber).toBe(1);
  });

  it('refuses to remove a component whose units are not billed yet (409), and removes it once they are 0', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID, NumUnits: 2 }] });
    const refused = await put(s.subscriptionID, 'components/modify', { componentUsage: [] });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('component_has_unbilled_usage');
    expect(
      (await put(s.subscriptionID, 'components/modify', [{ componentID: sms.componentID, NumUnits: 0 }]))
        .status,
    ).toBe(204);
    expect((await put(s.subscriptionID, 'components/modify', { componentUsage: [] })).status).toBe(204);
    expect((await get(s.subscriptionID)).componentUsage).toEqual([]);
  });

  it('refuses bad components with 422 naming them, and changes nothing', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID, NumUnits: 1 }] });
    const res = await put(s.subscriptionID, 'components/modify', [
      { componentID: sms.componentID, NumUnits: 5 },
      { componentID: zarOnly.componentID },
    ]);
    expect(fieldsOf(res)).toEqual(['componentUsage[1].componentID']);
    expect((await get(s.subscriptionID)).componentUsage).toEqual([expect.objectContaining({ NumUnits: 1 })]);
    expect(fieldsOf(await put(s.subscriptionID, 'components/modify', {}))).toEqual(['componentUsage']);
    expect(fieldsOf(await put(s.subscriptionID, 'components/modify', [{ componentID: 'x' }]))).toEqual([
      'componentUsage[0].componentID',
    ]);
  });

  it('refuses changes to an expired subscription (409)', async () => {
    const s = await subscribe({ EndDate: '2026-03-15' });
    setToday('2026-03-15');
    const res = await put(s.subscriptionID, 'components/modify', [{ componentID: sms.componentID }]);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_expired');
  });
});

describe('PUT /v1/subscriptions/{id}/components/recordusage', () => {
  it('adds to and sets the units of the usage period holding today', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    const id = s.subscriptionID;
    expect(
      (await put(id, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 5 }])).status,
    ).toBe(204);
    expect(
      (
        await put(id, 'components/recordusage', [
          { componentID: sms.componentID, NumUnits: 2.25, isSetUnits: 0 },
        ])
      ).status,
    ).toBe(204);
    expect((await get(id)).componentUsage[0]).toMatchObject({ NumUnits: 7.25, isSetUnits: false });
    expect(
      (
        await put(id, 'components/recordusage', {
          componentUsage: [{ componentID: sms.componentID, NumUnits: -3, Memo: 'refund' }],
        })
      ).status,
    ).toBe(204);
    expect((await get(id)).componentUsage[0]).toMatchObject({ NumUnits: 4.25, Memo: 'refund' });
    expect(
      (
        await put(id, 'components/recordusage', [
          { componentID: sms.componentID, NumUnits: '10', isSetUnits: true },
        ])
      ).status,
    ).toBe(204);
    expect((await get(id)).componentUsage[0]).toMatchObject({
      NumUnits: 10,
      isSetUnits: true,
      Memo: 'refund',
    });
  });

  it('starts a new usage period when the billing period turns', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    await put(s.subscriptionID, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 5 }]);
    // Monthly from 2026-03-10: the second period starts on 2026-04-10.
    setToday('2026-04-09');
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(5);
    setToday('2026-04-10');
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(0);
    await put(s.subscriptionID, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 2 }]);
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(2);
  });

  it('refuses units that would go below 0, applying none of the records', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID, NumUnits: 3 }] });
    const res = await put(s.subscriptionID, 'components/recordusage', [
      { componentID: sms.componentID, NumUnits: 1 },
      { componentID: sms.componentID, NumUnits: -5 },
    ]);
    expect(fieldsOf(res)).toEqual(['componentUsage[1].NumUnits']);
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(3);
    const negativeSet = await put(s.subscriptionID, 'components/recordusage', [
      { componentID: sms.componentID, NumUnits: -1, isSetUnits: true },
    ]);
    expect(fieldsOf(negativeSet)).toEqual(['componentUsage[0].NumUnits']);
  });

  it('refuses bad records with 422 naming the field', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    const id = s.subscriptionID;
    expect(
      fieldsOf(await put(id, 'components/recordusage', [{ componentID: zarOnly.componentID, NumUnits: 1 }])),
    ).toEqual(['componentUsage[0].componentID']);
    expect(fieldsOf(await put(id, 'components/recordusage', []))).toEqual(['componentUsage']);
    expect(fieldsOf(await put(id, 'components/recordusage', [{ componentID: sms.componentID }]))).toEqual([
      'componentUsage[0].NumUnits',
    ]);
    expect(
      fieldsOf(
        await put(id, 'components/recordusage', [
          { componentID: sms.componentID, NumUnits: 1, isSetUnits: 'yes' },
        ]),
      ),
    ).toEqual(['componentUsage[0].isSetUnits']);
    expect(
      fieldsOf(
        await put(id, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 0.00001 }]),
      ),
    ).toEqual(['componentUsage[0].NumUnits']);
  });

  it('refuses a component whose version lost its price in the currency (422)', async () => {
    const component = await createComponent();
    const s = await subscribe({ componentUsage: [{ componentID: component.componentID }] });
    const edit = await t.request('PUT', `/v1/components/${component.componentID}/versions/1`, {
      body: { VersionName: 'Launch', isActive: true, ComponentVersionCurrencies: [] },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(204);
    const res = await put(s.subscriptionID, 'components/recordusage', [
      { componentID: component.componentID, NumUnits: 1 },
    ]);
    expect(fieldsOf(res)).toEqual(['componentUsage[0].componentID']);
  });

  it('refuses usage on a Future, Expired or Cancelled subscription (409)', async () => {
    const future = await subscribeFuture({ componentUsage: [{ componentID: sms.componentID }] });
    const record = [{ componentID: sms.componentID, NumUnits: 1 }];
    const res = await put(future.subscriptionID, 'components/recordusage', record);
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('subscription_future');
    const ending = await subscribe({
      EndDate: '2026-03-12',
      componentUsage: [{ componentID: sms.componentID }],
    });
    const cancelled = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    await setColumns(cancelled.subscriptionID, { cancel_date: '2026-03-11', cancel_type: 'norefund' });
    setToday('2026-03-12');
    expect((await put(ending.subscriptionID, 'components/recordusage', record)).body.code).toBe(
      'subscription_expired',
    );
    expect((await put(cancelled.subscriptionID, 'components/recordusage', record)).body.code).toBe(
      'subscription_cancelled',
    );
  });

  it('loses nothing when 20 adds arrive at once', async () => {
    const s = await subscribe({ componentUsage: [{ componentID: sms.componentID }] });
    const results = await Promise.all(
      Array.from({ length: 20 }, () =>
        put(s.subscriptionID, 'components/recordusage', [{ componentID: sms.componentID, NumUnits: 1.5 }]),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(204));
    // 20 × 1.5
    expect((await get(s.subscriptionID)).componentUsage[0].NumUnits).toBe(30);
  });
});
