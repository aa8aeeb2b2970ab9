import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../errors.ts';
import { buildNetcashDebiCheckFile } from './netcashDebiCheck.ts';
import type { NetcashDebiCheckFile } from './netcashDebiCheck.ts';

const FILE: NetcashDebiCheckFile = {
  serviceKey: 'c74e1f25-5499-4663-85fb-2a6b1c0fb9ef',
  softwareVendorKey: '24ade73c-98cf-47b3-99be-cc7b867b3080',
  batchName: 'B42S1796126400',
  actionDate: '2026-12-03',
  lines: [
    {
      accountReference: 'DC000007',
      amountMinor: 42_050,
      trackingDays: 3,
      contractReference: 'NC000000012213',
      lineRef: '1001',
    },
    {
      accountReference: 'DC000008',
      amountMinor: 19_900,
      trackingDays: 0,
      contractReference: 'NC000000012214',
      lineRef: '1002',
    },
  ],
};

describe('Netcash’s DebiCheck collection file', () => {
  it('writes the DebiCheck instruction, the key fields ascending, each line’s contract reference and the totals', () => {
    const records = buildNetcashDebiCheckFile(FILE)
      .split('\r\n')
      .filter(Boolean)
      .map((record) => record.split('\t'));
    expect(records).toEqual([
      ['H', FILE.serviceKey, '1', 'DebiCheck', 'B42S1796126400', '20261203', FILE.softwareVendorKey],
      ['K', '101', '162', '232', '249', '301'],
      ['T', 'DC000007', '42050', '3', 'NC000000012213', '1001'],
      // No tracking: the field left blank, as the layout says of empty fields.
      ['T', 'DC000008', '19900', '', 'NC000000012214', '1002'],
      // R420.50 + R199.00 = R619.50
      ['F', '2', '61950', '9999'],
    ]);
  });

  it('names every field that breaks the layout', () => {
    const bad = {
      ...FILE,
      lines: [{ ...FILE.lines[0]!, trackingDays: 11, contractReference: '', amountMinor: 0 }],
    };
    try {
      buildNetcashDebiCheckFile(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).fields.map((f) => f.field)).toEqual([
        'lines[0].amountMinor',
        'lines[0].trackingDays',
        'lines[0].contractReference',
      ]);
    }
  });
});
