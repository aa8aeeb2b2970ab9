import { describe, expect, it } from 'vitest';
import { NiwsFaultError, niwsClient } from '../../../src/modules/gateways/index.ts';
import { DebiCheckBank } from './debiCheckLayouts.ts';
import { NiwsStandIn } from './niwsStandIn.ts';

// The DebiCheck layouts refuse what Netcash's published layout refuses (docs/gateways/netcash.md, "DebiCheck"), so
// that a test whose requests they take has sent what Netcash takes.

const KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';

const authenticate: [string, string][] = [
  ['ServiceKey', KEY],
  ['AccountReference', 'DC000001'],
  ['DebiCheckMandateTemplateId', 'NCDCT000000001'],
  ['IsIdNumber', '1'],
  ['DebtorIdentification', '8001015009087'],
  ['AccountName', 'Thandi Nkosi'],
  ['BankAccountName', 'T Nkosi'],
  ['BranchCode', '250655'],
  ['BankAccountNumber', '62001234567'],
  ['BankAccountType', 'Current'],
  ['MobileNumber', '0821234567'],
  ['EmailAddress', ''],
  ['CollectionAmount', '299.99'],
  ['FirstCollectionDiffers', '0'],
  ['FirstCollectionAmount', '299.99'],
  ['FirstCollectionDate', '20261203'],
  ['collectionDayCode', 'MNTH_03'],
];

describe('the DebiCheck layouts of the NIWS stand-in', () => {
  it('take the published layout and answer as the bank knob says', async () => {
    const bank = new DebiCheckBank();
    const client = niwsClient(new NiwsStandIn(bank.layouts()).fetch);
    expect(await client.call('nif', 'DebiCheckAuthenticate', authenticate)).toMatchObject({
      ErrorCode: '000',
      ContractReference: 'NC000000000001',
      Status: 'Accepted',
    });
    expect(
      await client.call('nif', 'DebiCheckCancelAuthentication', [
        ['ServiceKey', KEY],
        ['ContractReference', 'NC000000000001'],
        ['reasonCode', 'CUST'],
      ]),
    ).toBe('000');
    expect(bank.problems).toEqual([]);
  });

  it('refuse a template id, a date, a day code or an order that is not the layout’s, and a maximum over 1.5×', async () => {
    const bank = new DebiCheckBank();
    const standIn = new NiwsStandIn(bank.layouts());
    const client = niwsClient(standIn.fetch);
    const changed = authenticate.map(([name, value]): [string, string] =>
      name === 'DebiCheckMandateTemplateId'
        ? [name, 'TEMPLATE1']
        : name === 'FirstCollectionDate'
          ? [name, '2026-12-03']
          : name === 'collectionDayCode'
            ? [name, 'WEEK_03']
            : [name, value],
    );
    await expect(client.call('nif', 'DebiCheckAuthenticate', changed)).rejects.toThrow(NiwsFaultError);
    const swapped = [authenticate[1]!, authenticate[0]!, ...authenticate.slice(2)];
    await expect(client.call('nif', 'DebiCheckAuthenticate', swapped)).rejects.toThrow(/out of order/);
    expect(standIn.problems[0]).toMatch(/DebiCheckMandateTemplateId.*FirstCollectionDate.*collectionDayCode/);
    await client.call('nif', 'DebiCheckAmendAuthentication', [
      ['ServiceKey', KEY],
      ['ContractReference', 'NC000000000009'],
      ['CollectionAmountInCents', '10000'],
      ['MaximumCollectionAmountInCents', '15001'],
    ]);
    expect(bank.problems).toEqual(['MaximumCollectionAmountInCents 15001 is not within 1 to 1.5 × 10000']);
  });
});
