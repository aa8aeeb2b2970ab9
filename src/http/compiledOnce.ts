import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';

/**
 * What this process has compiled from schemas, by what it was compiled from (its JSON): compiled once per process
 * (docs/architecture.md, "How a request flows"). Fastify compiles every route's schemas for each app it builds, and
 * that was most of an app's start, about 0.35 s of CPU each time (a test file starts one or more, a process of
 * `serve` one). A schema's JSON is the key, not the object: some routes build theirs as they register, and a body's
 * closed schema (src/http/validation.ts) is a new object each time. Schemas are finite, so these are too.
 */
export function compiledOnce<F>(compiled: Map<string, F>, source: unknown, compile: () => F): F {
  const key = JSON.stringify(source);
  let found = compiled.get(key);
  if (found === undefined) compiled.set(key, (found = compile()));
  return found;
}

/**
 * A checking function compiled when first called: a process that never answers a route never compiles its schemas.
 * Fastify asks for every route's at start, which was a quarter of `billing serve`'s start. Ajv's way of telling
 * failures, `errors` on the function, is carried over.
 */
export function compiledWhenFirstCalled<F extends (data: never) => unknown>(compile: () => F): F {
  let compiled: F | undefined;
  const check = ((data: Parameters<F>[0]) => {
    compiled ??= compile();
    const result = compiled(data);
    check.errors = (compiled as { errors?: unknown }).errors;
    return result;
  }) as F & { errors?: unknown };
  check.errors = undefined;
  return check;
}

type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const SERIALIZERS = new Map<string, Serializer>();

/** Fastify's serializer compiler (fast-json-stringify), each response schema compiled once per process. */
export function serializersCompiledOnce(): SerializerFactory {
  const compileWith = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = compileWith(externalSchemas, options);
    return (route) =>
      compiledWhenFirstCalled(() =>
        compiledOnce(SERIALIZERS, [externalSchemas, options, route.schema], () => compile(route)),
      );
  };
}
