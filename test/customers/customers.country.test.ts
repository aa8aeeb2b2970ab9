import { describe, expect, it } from 'vitest';
import { useTestService } from '../helpers/testService.ts';

const t = useTestService();

async function created(body: Record<string, unknown>) {
  const res = await t.request('POST', '/v1/customers', { body: { Name: 'Ada', ...body } });
  expect(res.status, res.text).toBe(201);
  return res.body;
}

describe('the customer Country shown in responses', () => {
  it('is the name of countryID when no Country was given, in every customer response', async () => {
    const customer = await created({ countryID: 710 });
    expect(customer).toMatchObject({ countryID: 710, Country: 'South Africa' });
    const read = await t.request('GET', `/v1/customers/${customer.customerID}`);
    expect(read.body).toMatchObject({ countryID: 710, Country: 'South Africa' });
    const listed = await t.request('GET', '/v1/customers?page_size=200');
    expect(
      listed.body.find((c: { customerID: number }) => c.customerID === customer.customerID),
    ).toMatchObject({
      Country: 'South Africa',
    });
  });

  it('keeps the Country given, and is null with neither', async () => {
    expect(await created({ countryID: 710, Country: 'RSA' })).toMatchObject({
      countryID: 710,
      Country: 'RSA',
    });
    expect(await created({})).toMatchObject({ countryID: null, Country: null });
  });

  it('follows a change of countryID when no Country was given', async () => {
    const customer = await created({ countryID: 276 });
    const edited = await t.request('PUT', `/v1/customers/${customer.customerID}`, {
      body: { countryID: 250 },
    });
    expect(edited.status, edited.text).toBeLessThan(300);
    expect((await t.request('GET', `/v1/customers/${customer.customerID}`)).body).toMatchObject({
      countryID: 250,
      Country: 'France',
    });
  });
});
