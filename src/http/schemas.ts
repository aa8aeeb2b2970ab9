import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Page } from '../core/paging.ts';
import type { Static, TProperties, TString, TNumber, TInteger, TBoolean } from '@sinclair/typebox';

/**
 * Building blocks for route schemas. The same schemas validate requests, serialize responses and generate
 * the OpenAPI document. Spec, Conventions 6: an absent value is returned as null.
 */
type Primitive = TString | TNumber | TInteger | TBoolean;

/** `type: [T, "null"]`: validated and serialized natively, and the OpenAPI 3.1 spelling of a nullable value. */
export function Nullable<T extends Primitive>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type, 'null'] });
}

/**
 * A string from a fixed list. NOTE: `Type.Union` of literals becomes `anyOf`, which the response serializer
 * resolves by running a validator per value; an `enum` is checked directly.
 */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: { description?: string } = {},
) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** An object or null, as `type: ["object", "null"]` (not `anyOf`, for the same reason as StringEnum). */
export function NullableObject<T extends TProperties>(properties: T) {
  const object = Type.Object(properties);
  return Type.Unsafe<Static<typeof object> | null>({ ...object, type: ['object', 'null'] });
}

/** Row identifiers: positive and within the range every dialect and JSON client represent exactly. */
export const Id = (options: { description?: string } = {}) =>
  Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, ...options });

export const WireDate = (options: { description?: string } = {}) =>
  Type.String({
    format: 'wire-date',
    maxLength: 64,
    description: 'ISO 8601 date-time or date, or DD Mon YYYY (e.g. 05 Mar 2026)',
    ...options,
  });

/** A request date that may be null to clear it. */
export const NullableWireDate = () => Nullable(WireDate());

/** Responses: ISO 8601 in UTC with `Z`. */
export const DateOut = () => Nullable(Type.String({ format: 'date-time' }));

export const Text = (maxLength = 255, options: { description?: string; minLength?: number } = {}) =>
  Type.String({ maxLength, ...options });

export const PAGE_SIZE_DEFAULT = 100;
export const PAGE_SIZE_MAX = 200;

export const PagingQuery = Type.Object({
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1' }),
  ),
  page_size: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: PAGE_SIZE_MAX,
      default: PAGE_SIZE_DEFAULT,
      description: `Items per page (default ${PAGE_SIZE_DEFAULT}, at most ${PAGE_SIZE_MAX})`,
    }),
  ),
});
export type PagingQuery = Static<typeof PagingQuery>;

export function pageOf(query: PagingQuery): Page {
  const size = query.page_size ?? PAGE_SIZE_DEFAULT;
  return { limit: size, offset: ((query.page ?? 1) - 1) * size };
}

export const ProblemSchema = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.String(),
    fields: Type.Optional(Type.Array(Type.Object({ field: Type.String(), message: Type.String() }))),
    Errors: Type.Array(Type.Object({ Message: Type.String() })),
  },
  {
    $id: 'Problem',
    description: "RFC 9457 problem details, with the original service's Errors member",
    examples: [
      {
        type: '/problems/invalid_fields',
        title: 'Unprocessable Content',
        status: 422,
        detail: 'The request has invalid values: see fields',
        code: 'invalid_fields',
        fields: [{ field: 'Email', message: 'must be at most 254 characters' }],
        Errors: [{ Message: 'Email: must be at most 254 characters' }],
      },
    ],
  },
);

export const NoContent = { 204: Type.Null({ description: 'No Content' }) };

/**
 * The query of a route that takes none, such as a document's PDF: a parameter sent anyway is a 422 naming it, not a
 * document other than the one asked for (docs/spec-decisions.md, "Request bodies").
 */
export const NoQuery = Type.Object({}, { additionalProperties: false });

/**
 * A route option for bodies that may be left out entirely (an edit of nothing, a DELETE's optional parameters):
 * validates a missing body as an empty object.
 */
export function emptyBodyAsObject(request: FastifyRequest, _reply: unknown, done: () => void): void {
  request.body ??= {};
  done();
}
