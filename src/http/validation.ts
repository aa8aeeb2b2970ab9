import { Ajv } from 'ajv';
import type { ErrorObject, Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import type { FieldProblem } from '../errors.ts';
import { isWireDate } from '../core/wireDates.ts';

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: true, useDefaults: true, strict: false, ...options });
  addFormats.default(ajv, ['date-time', 'email']);
  ajv.addFormat('wire-date', { type: 'string', validate: isWireDate });
  return ajv;
}

// Query strings and path parameters arrive as text and are coerced to the schema's types. JSON bodies are not
// coerced: Ajv would turn a null into "" or 0, so a body's types must be right as sent.
const coercing = makeAjv({ coerceTypes: true });
const exact = makeAjv({ coerceTypes: false });

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) =>
  (httpPart === 'body' ? exact : coercing).compile(schema as object) as ReturnType<
    FastifySchemaCompiler<unknown>
  >;

/** `/rules/1/Perc` becomes `rules[1].Perc`: the field as a client would name it. */
function fieldName(instancePath: string, child?: string): string {
  const parts = instancePath.split('/').filter(Boolean);
  if (child !== undefined) parts.push(child);
  return parts.reduce(
    (name, part) => (/^\d+$/.test(part) ? `${name}[${part}]` : name ? `${name}.${part}` : part),
    '',
  );
}

function message(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'format':
      return error.params.format === 'wire-date'
        ? 'must be a date: ISO 8601 (2026-03-05T14:30:00Z) or DD Mon YYYY (05 Mar 2026)'
        : `must be a valid ${error.params.format}`;
    case 'type': {
      const expected = ([] as string[]).concat(error.params.type);
      return `must be ${expected.map((t) => (t === 'null' ? 'null' : `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`)).join(' or ')}`;
    }
    case 'enum':
      return `must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'maxLength':
      return `must be at most ${error.params.limit} characters`;
    case 'minLength':
      return error.params.limit === 1
        ? 'must not be empty'
        : `must be at least ${error.params.limit} characters`;
    case 'maxItems':
      return `must have at most ${error.params.limit} items`;
    case 'minItems':
      return `must have at least ${error.params.limit} items`;
    default:
      return error.message ?? 'is invalid';
  }
}

export function fieldProblemsFromAjv(errors: ErrorObject[], part: string | undefined): FieldProblem[] {
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  for (const error of errors) {
    // Nullable primitives are written as type [T, "null"]; an anyOf failure repeats what its branches said.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    let field = fieldName(
      error.instancePath,
      error.keyword === 'required' ? (error.params.missingProperty as string) : undefined,
    );
    if (field === '') field = part === 'body' ? 'body' : (part ?? 'request');
    const problem = { field, message: message(error) };
    const key = `${problem.field}\u0000${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}
