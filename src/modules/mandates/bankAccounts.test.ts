import fc from 'fast-check';
import { composeIBAN, getCountrySpecifications, isValidBBAN, isValidIBAN } from 'ibantools';
import { describe, expect, it } from 'vitest';
import {
  accountNumberDigits,
  bicCountryProblem,
  bicProblem,
  ibanProblem,
  isValidBic,
  isValidBranchCode,
  isValidIban,
  isValidRoutingNumber,
  lastFour,
  normalizeBic,
  normalizeIban,
} from './bankAccounts.ts';

// The SEPA IBANs of the test gateway (docs/gateways.md, "The test gateway's bank accounts").
const SEPA_TEST_IBANS = [
  'AT611904300234573201',
  'DE89370400440532013000',
  'DE41370400440000000001',
  'AT321904300235473204',
  'AT861904300235473202',
  'AT051904300235473205',
  'AT591904300235473203',
  'AT981904300002222227',
  'DE57370400440000000101',
  'DE73370400440000000104',
  'DE19370400440000000106',
  'DE24370400440000000404',
  'DE40370400440000000601',
  'DE02370400440000000606',
  'DE72370400440000000607',
  'DE29370400440000000702',
  'DE02370400440000000703',
];

const SHAPE = 'must be an IBAN: a country code, two check digits, then letters and digits';

describe('IBAN', () => {
  it.each(SEPA_TEST_IBANS)('accepts the test gateway IBAN %s', (iban) => {
    expect(ibanProblem(iban)).toBeUndefined();
    expect(isValidIban(iban)).toBe(true);
  });

  // The registry's own examples.
  it.each([
    'DE89370400440532013000',
    'GB29NWBK60161331926819',
    'NL91ABNA0417164300',
    'FR1420041010050500013M02606',
    'BE68539007547034',
    'NO9386011117947',
    'MT84MALT011000012345MTLCAST001S',
    'CH9300762011623852957',
    'SA0380000000608010167519',
    'LC55HEMM000100010012001200023015',
  ])('accepts %s', (iban) => {
    expect(ibanProblem(iban)).toBeUndefined();
    expect(isValidIban(iban)).toBe(true);
  });

  it('reads the printed form: spaces, line breaks, dashes and lower case', () => {
    expect(normalizeIban('de89 3704 0044 0532 0130 00')).toBe('DE89370400440532013000');
    expect(normalizeIban(' at61\t1904 3002\n3457 3201 ')).toBe('AT611904300234573201');
    expect(normalizeIban('DE89-3704-0044-0532-0130-00')).toBe('DE89370400440532013000');
    expect(isValidIban(normalizeIban(' gb29 nwbk 6016 1331 9268 19 '))).toBe(true);
    expect(normalizeIban('')).toBe('');
  });

  it.each([
    ['DE89370400440532013001', 'has wrong check digits'],
    ['DE98370400440532013000', 'has wrong check digits'],
    ['AT611904300234573202', 'has wrong check digits'],
    ['GB29NWBK60161331926891', 'has wrong check digits'],
    ['DE8937040044053201300', 'an IBAN of DE has 22 characters, not 21'],
    ['AT6119043002345732011', 'an IBAN of AT has 20 characters, not 21'],
    ['NL91ABNA04171643001', 'an IBAN of NL has 18 characters, not 19'],
    ['US12345678901234567890', 'US is not a country that uses IBANs'],
    ['ZA12345678901234567890', 'ZA is not a country that uses IBANs'],
    ['XX12345678901234567890', 'XX is not a country that uses IBANs'],
    ['NL91123404171643001A', 'an IBAN of NL has 18 characters, not 20'],
    ['NL9112340417164300', 'after its check digits an IBAN of NL has 4 letters, then 10 digits'],
    ['DE8937040044053201300A', 'after its check digits an IBAN of DE has 18 digits'],
    ['GB29NWBK6016133192681X', 'after its check digits an IBAN of GB has 4 letters, then 14 digits'],
    // Passes mod-97 (composed from the BBAN) but not Belgium's own check on the account number.
    ['BE41539007547035', 'has wrong national check digits for BE in its account part'],
    ['D89370400440532013000', SHAPE],
    ['DEXX370400440532013000', SHAPE],
    ['DE89-3704-0044-0532-0130-00', SHAPE],
    ['de89370400440532013000', SHAPE],
    ['', SHAPE],
  ])('refuses %j: %s', (iban, problem) => {
    expect(ibanProblem(iban)).toBe(problem);
    expect(isValidIban(iban)).toBe(false);
  });

  it('builds the national-check example from its BBAN, so only the national check fails', () => {
    expect(composeIBAN({ countryCode: 'BE', bban: '539007547035' })).toBe('BE41539007547035');
  });

  // Arbitraries for IBANs that ibantools composes from a BBAN of the country's layout and national check.
  const ibanCountries = Object.entries(getCountrySpecifications()).filter(
    ([, spec]) => spec.chars !== null && spec.bban_regexp !== null,
  );
  const composedIban = fc.constantFrom(...ibanCountries).chain(([country, spec]) =>
    fc
      // Some of ibantools' patterns lack an anchor; the BBAN must be all of the text.
      .stringMatching(new RegExp(`^(?:${spec.bban_regexp!.replace(/^\^/, '').replace(/\$$/, '')})$`))
      .filter((bban) => isValidBBAN(bban, country))
      .map((bban) => composeIBAN({ countryCode: country, bban })!),
  );

  it('accepts every IBAN composed from a valid BBAN of any IBAN country', () => {
    fc.assert(
      fc.property(composedIban, (iban) => {
        expect(ibanProblem(iban)).toBeUndefined();
      }),
    );
  });

  it('takes check digits 02 to 98 only: 00, 01 and 99 fit MOD 97 for 97, 98 and 02 but are not an IBAN', () => {
    for (const [right, wrong] of [
      ['DE97370400440000000060', 'DE00370400440000000060'],
      ['DE98370400440000001400', 'DE01370400440000001400'],
      ['DE02370400440000000800', 'DE99370400440000000800'],
    ] as const) {
      expect(ibanProblem(right)).toBeUndefined();
      expect(ibanProblem(wrong)).toBe('has wrong check digits');
    }
  });

  it("agrees with ibantools' own validation on any text of an IBAN's shape", () => {
    const shaped = fc.oneof(
      composedIban,
      // Every pair of check digits, the right one among them.
      fc
        .tuple(composedIban, fc.integer({ min: 0, max: 99 }))
        .map(([iban, digits]) => iban.slice(0, 2) + String(digits).padStart(2, '0') + iban.slice(4)),
      fc
        .tuple(
          fc.constantFrom(...ibanCountries.map(([country]) => country)),
          fc.stringMatching(/^\d{2}[A-Z0-9]{8,32}$/),
        )
        .map(([country, rest]) => country + rest),
    );
    fc.assert(
      fc.property(shaped, (iban) => {
        expect(ibanProblem(iban) === undefined).toBe(isValidIBAN(iban));
      }),
    );
  });

  it('refuses a composed IBAN with any one digit changed, without repeating its account part', () => {
    fc.assert(
      fc.property(composedIban, fc.nat(), fc.integer({ min: 1, max: 9 }), (iban, pick, step) => {
        const digitAt = [...iban].flatMap((char, at) => (/\d/.test(char) ? [at] : []));
        const at = digitAt[pick % digitAt.length]!;
        const changed = iban.slice(0, at) + String((Number(iban[at]) + step) % 10) + iban.slice(at + 1);
        const problem = ibanProblem(changed);
        expect(problem).toBeDefined();
        expect(problem).not.toContain(changed.slice(4));
      }),
    );
  });
});

describe('BIC', () => {
  it.each(['DEUTDEFF', 'DEUTDEFF500', 'NWBKGB2L', 'ABNANL2A', 'BNPAFRPPXXX', 'SBZAZAJJ', 'COBADEFFXXX'])(
    'accepts %s',
    (bic) => {
      expect(bicProblem(bic)).toBeUndefined();
      expect(isValidBic(bic)).toBe(true);
    },
  );

  const FORMAT =
    'must be a BIC: 4 letters for the bank, 2 for the country, 2 letters or digits for the place and optionally 3 for the branch (e.g. DEUTDEFF or DEUTDEFF500)';
  it.each([
    ['DEUTDEF', FORMAT],
    ['DEUTDEFF5', FORMAT],
    ['DEUTDEFF50', FORMAT],
    ['DEUTDEFF5000', FORMAT],
    ['D3UTDEFF', FORMAT],
    ['DEUT1EFF', FORMAT],
    ['deutdeff', FORMAT],
    ['DEUT DEFF', FORMAT],
    ['NOPE', FORMAT],
    ['', FORMAT],
    ['DEUTXXFF', 'has XX as its country (5th and 6th characters), which is not a country code'],
    ['DEUTQQFF500', 'has QQ as its country (5th and 6th characters), which is not a country code'],
  ])('refuses %j: %s', (bic, problem) => {
    expect(bicProblem(bic)).toBe(problem);
    expect(isValidBic(bic)).toBe(false);
  });

  it('reads the printed form: spaces and lower case', () => {
    expect(normalizeBic(' deut de ff 500 ')).toBe('DEUTDEFF500');
    expect(isValidBic(normalizeBic('cobadeffxxx'))).toBe(true);
  });
});

describe("the BIC's country against the IBAN's", () => {
  it.each([
    ['DE89370400440532013000', 'COBADEFFXXX'],
    ['AT611904300234573201', 'BKAUATWW'],
    ['GB33BUKB20201555555555', 'BUKBGB22'],
    // Territories sharing a scheme, either way round.
    ['FR1420041010050500013M02606', 'BNPARERX'],
    ['GB29NWBK60161331926819', 'RBOSGGSX'],
    ['GB29NWBK60161331926819', 'HBUKJESH'],
    ['GB29NWBK60161331926819', 'LOYDIMDD'],
    ['DK5000400440116243', 'FIFBFOTX'],
    ['MC5811222000010123456789030', 'CFMOFRPP'],
  ])('lets %s go with %s', (iban, bic) => {
    expect(isValidIban(iban) && isValidBic(bic)).toBe(true);
    expect(bicCountryProblem(iban, bic)).toBeUndefined();
  });

  it.each([
    ['DE89370400440532013000', 'BNPAFRPPXXX', 'FR', 'DE'],
    ['AT611904300234573201', 'DEUTDEFF', 'DE', 'AT'],
    ['NL91ABNA0417164300', 'NDEAFIHH', 'FI', 'NL'],
    ['FR1420041010050500013M02606', 'DEUTDEFF', 'DE', 'FR'],
  ])('refuses %s with %s, naming the countries only', (iban, bic, bicCountry, ibanCountry) => {
    const problem = bicCountryProblem(iban, bic);
    expect(problem).toBe(
      `is a BIC of ${bicCountry} (5th and 6th characters) but the IBAN is of ${ibanCountry}: the BIC must be that of the IBAN's bank`,
    );
    expect(problem).not.toContain(iban.slice(4));
  });
});

describe('ABA routing number', () => {
  it.each(['021000021', '011000015', '111000025', '121000358', '026009593', '322271627'])(
    'accepts %s',
    (rtn) => {
      expect(isValidRoutingNumber(rtn)).toBe(true);
    },
  );

  it.each([
    ['021000022', 'checksum'],
    ['111000026', 'checksum'],
    ['02100002', 'eight digits'],
    ['0210000210', 'ten digits'],
    ['02100002a', 'a letter'],
    ['130000009', 'prefix 13 names no district'],
    ['500000008', 'prefix 50 names no district'],
    ['000000000', 'all zeros, though its checksum holds'],
  ])('refuses %s (%s)', (rtn) => {
    expect(isValidRoutingNumber(rtn)).toBe(false);
  });
});

describe('account and branch numbers', () => {
  it('reads account numbers as digits, grouped or not, 4 to 17 of them', () => {
    expect(accountNumberDigits('62001234567')).toBe('62001234567');
    expect(accountNumberDigits('6200 123 4567')).toBe('62001234567');
    expect(accountNumberDigits('6200-123-4567')).toBe('62001234567');
    expect(accountNumberDigits('1234')).toBe('1234');
    expect(accountNumberDigits('1'.repeat(17))).toBe('1'.repeat(17));
    for (const bad of ['123', '1'.repeat(18), '62001234567x', '6200.1234', '', '  ']) {
      expect(accountNumberDigits(bad)).toBeUndefined();
    }
  });

  it('takes branch codes as printed: 250655, 12-34-56, 123 456, SBIN0001234', () => {
    for (const good of ['250655', '12-34-56', '123 456', 'SBIN0001234', '051']) {
      expect(isValidBranchCode(good)).toBe(true);
    }
    for (const bad of ['12', '-123', '123-', '12_34', 'x'.repeat(21), '']) {
      expect(isValidBranchCode(bad)).toBe(false);
    }
  });

  it('keeps the last four characters', () => {
    expect(lastFour('62001234567')).toBe('4567');
    expect(lastFour('MT84MALT011000012345MTLCAST001S')).toBe('001S');
  });
});
