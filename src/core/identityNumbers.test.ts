import { describe, expect, it } from 'vitest';
import { identityKindOf, identityNumberProblem, passesLuhn } from './identityNumbers.ts';

describe('identity numbers', () => {
  it('reads a kind as people write it', () => {
    for (const text of ['sa_id', 'SA ID', 'South African ID', 'id'])
      expect(identityKindOf(text)).toBe('sa_id');
    expect(identityKindOf('PASSPORT')).toBe('passport');
    expect(identityKindOf('drivers licence')).toBeUndefined();
  });

  it('takes a South-African ID number with its birth date, citizenship digit and Luhn check digit', () => {
    // 8001015009087 is the layout's common worked example (1 January 1980, citizen).
    expect(identityNumberProblem('sa_id', '8001015009087')).toBeNull();
    expect(identityNumberProblem('sa_id', '0002295009084')).toBeNull(); // 29 February 2000
  });

  it('names what is wrong with one that will not do', () => {
    expect(identityNumberProblem('sa_id', '800101500908')).toMatch(/13 digits/);
    expect(identityNumberProblem('sa_id', '8013015009087')).toMatch(/birth date/);
    expect(identityNumberProblem('sa_id', '8002305009087')).toMatch(/birth date/);
    expect(identityNumberProblem('sa_id', '8001015009387')).toMatch(/citizenship/);
    expect(identityNumberProblem('sa_id', '8001015009088')).toMatch(/check digit/);
    expect(identityNumberProblem('passport', 'A1234567')).toBeNull();
    expect(identityNumberProblem('passport', 'a 123')).toMatch(/passport/);
  });

  it('computes the Luhn check', () => {
    expect(passesLuhn('79927398713')).toBe(true);
    expect(passesLuhn('79927398710')).toBe(false);
  });
});
