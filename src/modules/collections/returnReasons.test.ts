import { describe, expect, it } from 'vitest';
import { KNOWN_REASON_CODES, RETURN_REASONS, achReason, saEftReason, sepaReason } from './returnReasons.ts';

/** The rows of docs/bank-files.md, "Return reasons", rail by rail. */
const TABLE: [reason: string, saEft: string[], ach: string[], sepa: string[]][] = [
  ['insufficient_funds', ['02'], ['R01'], ['AM04', 'MS03']],
  ['uncleared_funds', ['22'], ['R09'], []],
  ['account_closed', ['12', '14', '16'], ['R02'], ['AC04']],
  ['invalid_account', ['26', '50'], ['R03', 'R04'], ['AC01']],
  ['debits_not_allowed', ['03'], ['R20'], ['AC06', 'AG01']],
  ['payment_stopped', ['04', '36'], ['R08'], ['MS02']],
  ['authorisation_revoked', ['34'], ['R07'], ['MD01']],
  ['unauthorised', ['30'], ['R05', 'R10', 'R29'], []],
  ['disputed', ['28', '32'], [], ['MD06']],
  ['deceased', ['18'], ['R14', 'R15'], ['MD07']],
  ['account_frozen', ['06'], ['R16'], []],
  ['legal', ['08', '10', '56'], [], []],
  ['consecutive_unpaids', ['60'], [], []],
  [
    'technical',
    ['145', '83'],
    ['R13', 'R17', 'R18', 'R19', 'R21', 'R22', 'R23', 'R24', 'R25', 'R26', 'R27', 'R28'],
    [],
  ],
];

describe('return reasons', () => {
  describe.each(TABLE)('%s', (reason, saEft, ach, sepa) => {
    it.each(saEft)('SA EFT %s', (code) => expect(saEftReason(code).reason).toBe(reason));
    if (ach.length > 0) it.each(ach)('ACH %s', (code) => expect(achReason(code).reason).toBe(reason));
    if (sepa.length > 0) it.each(sepa)('SEPA %s', (code) => expect(sepaReason(code).reason).toBe(reason));
  });

  it('lets only funds codes and the SA timeout be presented again automatically', () => {
    const retryable = [
      ...KNOWN_REASON_CODES.saEft.filter((code) => saEftReason(code).retryable).map((code) => `SA ${code}`),
      ...KNOWN_REASON_CODES.ach.filter((code) => achReason(code).retryable),
      ...KNOWN_REASON_CODES.sepa.filter((code) => sepaReason(code).retryable),
    ];
    // SA 22 is uncleared funds too, but permanent in the current Netcash table (docs/design/batches.md, "SA debit
    // orders").
    expect(retryable.sort()).toEqual(['AM04', 'MS03', 'R01', 'R09', 'SA 02', 'SA 83']);
  });

  it('reads SA codes with or without the leading zero, and ACH and SEPA codes in any case', () => {
    expect(saEftReason('2')).toEqual(saEftReason('02'));
    expect(achReason(' r01 ')).toEqual({ reason: 'insufficient_funds', retryable: true });
    expect(sepaReason('am04')).toEqual({ reason: 'insufficient_funds', retryable: true });
  });

  it('calls a code no table knows unclassified, and never retries it', () => {
    for (const mapping of [saEftReason('99'), achReason('R99'), sepaReason('XX01'), sepaReason('')]) {
      expect(mapping).toEqual({ reason: 'unclassified', retryable: false });
    }
  });

  it('calls a name every object inherits, such as valueOf, unclassified', () => {
    for (const code of ['valueOf', 'toString', 'constructor', '__proto__', 'hasOwnProperty'])
      for (const read of [saEftReason, achReason, sepaReason])
        expect(read(code), code).toEqual({ reason: 'unclassified', retryable: false });
  });

  it('maps every known code to a reason of the taxonomy', () => {
    const all = [
      ...KNOWN_REASON_CODES.saEft.map(saEftReason),
      ...KNOWN_REASON_CODES.ach.map(achReason),
      ...KNOWN_REASON_CODES.sepa.map(sepaReason),
    ];
    for (const { reason } of all) expect(RETURN_REASONS).toContain(reason);
  });
});
