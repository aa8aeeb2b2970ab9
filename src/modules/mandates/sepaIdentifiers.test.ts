import { describe, expect, it } from 'vitest';
import { mandateReferenceProblem } from './sepaIdentifiers.ts';

describe('mandateReferenceProblem', () => {
  it('takes what a pain.008 can carry and names what it cannot', () => {
    expect(mandateReferenceProblem('ACME-2026/0042')).toBeUndefined();
    expect(mandateReferenceProblem('M'.repeat(35))).toBeUndefined();
    expect(mandateReferenceProblem('M'.repeat(36))).toMatch(/at most 35/);
    expect(mandateReferenceProblem('ACME#1')).toMatch(/must use only/);
    expect(mandateReferenceProblem('/ACME')).toMatch(/\//);
  });
});
