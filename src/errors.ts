/**
 * The closed family of failures a use case may throw. Codes are stable snake_case strings that clients may
 * rely on; only the HTTP error handler (src/http/errors.ts) knows which status each kind maps to.
 */
export interface FieldProblem {
  /** The wire name of the field, as the request spelled it (e.g. `Email`, `rules[1].Perc`). */
  field: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly kind: 'not_found' | 'conflict' | 'validation' | 'not_allowed' | 'gone';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export class NotFoundError extends DomainError {
  readonly kind = 'not_found';
  constructor(resource: string, id: number | string) {
    super(`${resource.toLowerCase().replace(/ /g, '_')}_not_found`, `${resource} ${id} was not found`);
  }
}

export class ConflictError extends DomainError {
  readonly kind = 'conflict';
}

export class ValidationError extends DomainError {
  readonly kind = 'validation';
  constructor(
    readonly fields: FieldProblem[],
    code = 'invalid_fields',
  ) {
    super(code, fields.map((f) => `${f.field}: ${f.message}`).join('; '));
  }

  static field(field: string, message: string, code?: string): ValidationError {
    return new ValidationError([{ field, message }], code);
  }
}

/** The request is understood and valid but the operation is not allowed for this caller. */
export class NotAllowedError extends DomainError {
  readonly kind = 'not_allowed';
}

/**
 * The resource existed but is no longer available for the operation, and never will be again (a capture session
 * past its grace period: docs/design/hosted-pages.md, "Capture widget").
 */
export class GoneError extends DomainError {
  readonly kind = 'gone';
}
