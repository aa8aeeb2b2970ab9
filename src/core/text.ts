import type { FieldProblem } from '../errors.ts';

/** Optional text from a request: absent stays undefined (keep what is there), blank or null becomes null. */
export function optionalText(value: string | null | undefined): string | null | undefined {
  if (value === undefined) return undefined;
  if (value === null) return null;
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function isEmailAddress(value: string): boolean {
  return EMAIL.test(value);
}

/** Required text from a request, trimmed; a blank one is noted as a problem of `field`. */
export function requiredText(value: string, field: string, problems: FieldProblem[]): string {
  const text = value.trim();
  if (text === '') problems.push({ field, message: 'must not be blank' });
  return text;
}
