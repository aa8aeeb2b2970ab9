import { Ajv } from 'ajv';
import type { ErrorObject, Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchema } from 'fastify';
import type { FieldProblem } from '../errors.ts';
import { isWireDate } from '../core/wireDates.ts';
import { compiledOnce, compiledWhenFirstCalled } from './compiledOnce.ts';
import { refusingUnknownFields, unknownFieldMessage, writableFieldsAt } from './unknownFields.ts';

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

/** An unknown field's error, with the fields declared where it was sent (for the did-you-mean). */
type Explained = ErrorObject & { params: { knownFields?: string[] } };

/**
 * Validates a body against its closed schema; each unknown field's error names the fields it may have meant.
 * (Not Ajv's `verbose`, which would copy the request's data, a card number say, into every error.)
 */
function bodyValidator(schema: unknown, resource: unknown) {
  const closed = refusingUnknownFields(schema, resource) as object;
  const validate = exact.compile(closed);
  const check = (body: unknown) => {
    const valid = validate(body);
    check.errors = validate.errors?.map((error) =>
      error.keyword === 'additionalProperties'
        ? { ...error, params: { ...error.params, knownFields: writableFieldsAt(closed, error.schemaPath) } }
        : error,
    );
    return valid;
  };
  check.errors = undefined as Explained[] | undefined;
  return check;
}

function successSchema(response: FastifySchema['response']): unknown {
  if (typeof response !== 'object' || response === null) return undefined;
  const byStatus = response as Record<string, unknown>;
  return byStatus[200] ?? byStatus[201];
}

/**
 * Validates every route's input, each schema compiled when first needed (src/http/compiledOnce.ts). A body refuses
 * fields its operation does not define (unknownFields.ts); what the operation answers, or for an edit answering
 * nothing what a GET of the same path answers, is the resource whose fields a client may send back.
 */
export function registerValidation(app: FastifyInstance): void {
  const answers = new Map<string, unknown>();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat())
      answers.set(`${method} ${route.url}`, successSchema(route.schema?.response));
  });
  // Fastify compiles schemas once every route is registered (on ready), so every answer is known by then.
  app.setValidatorCompiler(({ schema, httpPart, method, url }) => {
    if (httpPart !== 'body')
      return compiledWhenFirstCalled(() =>
        compiledOnce(PART_VALIDATORS, schema, () => coercing.compile(schema as object)),
      );
    const resource = answers.get(`${method} ${url}`) ?? answers.get(`GET ${url}`);
    return compiledWhenFirstCalled(() => bodyValidatorOnce(schema as object, resource));
  });
}

/** The validators compiled in this process (src/http/compiledOnce.ts): of path, query and headers, and of bodies. */
const PART_VALIDATORS = new Map<string, ReturnType<typeof coercing.compile>>();
const BODY_VALIDATORS = new Map<string, ReturnType<typeof bodyValidator>>();

function bodyValidatorOnce(schema: object, resource: unknown) {
  return compiledOnce(BODY_VALIDATORS, [schema, resource], () => bodyValidator(schema, resource));
}

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
    const unknown =
      error.keyword === 'additionalProperties' ? (error.params.additionalProperty as string) : undefined;
    let field = fieldName(
      error.instancePath,
      error.keyword === 'required' ? (error.params.missingProperty as string) : unknown,
    );
    if (field === '') field = part === 'body' ? 'body' : (part ?? 'request');
    const problem = {
      field,
      message:
        unknown === undefined
          ? message(error)
          : unknownFieldMessage(unknown, (error as Explained).params.knownFields ?? []),
    };
    const key = `${problem.field}\u0000${problem.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      problems.push(problem);
    }
  }
  return problems;
}
