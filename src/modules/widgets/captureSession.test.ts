import { describe, expect, it } from 'vitest';
import { completeGraceOver, parseExpiresIn, stateAt, typesConflict } from './captureSession.ts';

describe('parseExpiresIn', () => {
  it.each([
    ['00:30:00', 1800],
    ['1:00:00', 3600],
    ['24:00:00', 86_400],
    ['1.00:00:00', 86_400],
    ['00:00:01', 1],
  ])('reads %s as %i seconds', (text, seconds) => {
    expect(parseExpiresIn(text)).toEqual({ seconds });
  });

  it.each(['', '30', '00:30', '24:00:01', '1.00:00:01', '00:60:00', '00:00:00', '-1:00:00', '00:30:00 '])(
    'refuses %j',
    (text) => {
      expect(parseExpiresIn(text)).toHaveProperty('refused');
    },
  );
});

describe('typesConflict', () => {
  it('lets VaultGateway go with VaultOnly and VaultSale, None with Sale', () => {
    expect(typesConflict('VaultGateway', 'VaultOnly')).toBeUndefined();
    expect(typesConflict('VaultGateway', 'VaultSale')).toBeUndefined();
    expect(typesConflict('None', 'Sale')).toBeUndefined();
  });
  it('refuses None without Sale and Sale with a vault', () => {
    expect(typesConflict('None', 'VaultOnly')).toContain('SaleType must be Sale');
    expect(typesConflict('VaultGateway', 'Sale')).toContain('VaultingType must be None');
  });
});

describe('stateAt', () => {
  const expires = '2026-03-15T11:00:00.000Z';
  it('shows an open or locked session past Expires as expired, from the instant itself', () => {
    expect(stateAt('open', expires, '2026-03-15T10:59:59.999Z')).toBe('open');
    expect(stateAt('open', expires, expires)).toBe('expired');
    expect(stateAt('locked', expires, expires)).toBe('expired');
    expect(stateAt('capturing', expires, '2026-03-15T10:00:00.000Z')).toBe('open');
  });
  it('keeps captured and completed sessions as they are', () => {
    expect(stateAt('captured', expires, '2026-03-17T00:00:00.000Z')).toBe('captured');
    expect(stateAt('completed', expires, '2026-03-17T00:00:00.000Z')).toBe('completed');
  });
  it('allows complete for a day after Expires', () => {
    expect(completeGraceOver(expires, '2026-03-16T10:59:59.999Z')).toBe(false);
    expect(completeGraceOver(expires, '2026-03-16T11:00:00.000Z')).toBe(true);
  });
});
