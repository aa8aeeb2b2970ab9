import { beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { isWireDate } from '../../src/core/wireDates.ts';
import { useTestService } from '../helpers/testService.ts';

/**
 * Keeps the API reference complete: a route added without a summary, an operationId, a description or examples
 * fails here, naming the operation and the property. "Realistic" is checked as: every value-holding property of
 * every JSON request body and response (shared schemas and problems included) has an example, or its object has
 * one; each example is valid for its own schema (type, length, enum, format); none is a generator placeholder
 * ("string", "", an identifier of 0); and every path parameter has an example.
 */

type Json = Record<string, any>;

let doc: Json;
const t = useTestService();
beforeAll(async () => {
  const res = await t.request('GET', '/openapi.json', { auth: false });
  expect(res.status).toBe(200);
  doc = res.body;
});

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

function operations(): { name: string; operation: Json }[] {
  return Object.entries(doc.paths as Json).flatMap(([path, item]) =>
    Object.entries(item as Json)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({
        name: `${method.toUpperCase()} ${path}`,
        operation: operation as Json,
      })),
  );
}

const ajv = new Ajv({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addFormat('wire-date', { type: 'string', validate: isWireDate });

function typesOf(schema: Json): string[] {
  return ([] as string[]).concat(schema.type ?? []);
}

function isLeaf(schema: Json): boolean {
  if (schema.$ref || schema.properties || schema.anyOf || schema.oneOf || schema.allOf) return false;
  if (typesOf(schema).includes('object')) return false;
  return !(typesOf(schema).includes('array') && schema.items && !isLeaf(schema.items));
}

function isPlaceholder(name: string, value: unknown): boolean {
  if (value === 'string' || value === '') return true;
  return /ID$/.test(name) && typeof value === 'number' && value < 1;
}

/** Every problem with the examples of a schema, as "where: what". */
function exampleProblems(
  schema: Json,
  where: string,
  problems: string[],
  seen = new Set<string>(),
): string[] {
  if (schema.$ref) {
    const name = String(schema.$ref).replace('#/components/schemas/', '');
    if (!seen.has(name)) {
      seen.add(name);
      exampleProblems(doc.components.schemas[name], `${name}`, problems, seen);
    }
    return problems;
  }
  if (schema.properties && Array.isArray(schema.examples)) {
    // An example of the whole object stands for its properties.
    const validate = ajv.compile(schema);
    for (const example of schema.examples)
      if (!validate(example)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
    return problems;
  }
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
    const at = `${where}.${name}`;
    if (isLeaf(property)) {
      const examples = property.examples ?? (property.example === undefined ? [] : [property.example]);
      if (examples.length === 0) problems.push(`${at}: no example`);
      const { examples: _ignored, ...own } = property;
      const validate = ajv.compile(own);
      for (const example of examples) {
        if (isPlaceholder(name, example)) problems.push(`${at}: placeholder ${JSON.stringify(example)}`);
        if (!validate(example))
          problems.push(`${at}: ${JSON.stringify(example)} ${ajv.errorsText(validate.errors)}`);
      }
    } else exampleProblems(property, at, problems, seen);
  }
  if (schema.items) exampleProblems(schema.items, `${where}[]`, problems, seen);
  for (const key of ['anyOf', 'oneOf', 'allOf'])
    for (const member of schema[key] ?? []) exampleProblems(member, where, problems, seen);
  return problems;
}

describe('the OpenAPI document', () => {
  it('gives every operation a summary, a camelCase operationId unique in the document, and a description', () => {
    const problems: string[] = [];
    const ids = new Map<string, string>();
    for (const { name, operation } of operations()) {
      if (!operation.summary?.trim()) problems.push(`${name}: no summary`);
      if (!operation.description?.trim()) problems.push(`${name}: no description`);
      const id = operation.operationId;
      if (!/^[a-z][A-Za-z]+$/.test(id ?? '')) problems.push(`${name}: operationId ${id} is not camelCase`);
      else if (ids.has(id)) problems.push(`${name}: operationId ${id} also names ${ids.get(id)}`);
      else ids.set(id, name);
    }
    expect(problems).toEqual([]);
    expect(ids.size).toBeGreaterThan(120);
    expect(ids.get('createPayment')).toBe('POST /v1/payments');
    expect(ids.get('listCustomers')).toBe('GET /v1/customers');
  });

  it('describes every tag, and every tag it declares is used by an operation', () => {
    const declared = new Map<string, string>(
      (doc.tags as Json[]).map((tag) => [tag.name as string, tag.description as string]),
    );
    const used = new Set(operations().flatMap(({ operation }) => operation.tags ?? []));
    for (const tag of used) expect(declared.get(tag), `tag ${tag}`).toMatch(/\w{3,}/);
    for (const tag of declared.keys()) expect(used.has(tag), `tag ${tag} is used`).toBe(true);
    for (const { name, operation } of operations()) expect(operation.tags?.length, name).toBe(1);
  });

  it('labels every 2xx response, 201 and 204 included', () => {
    const problems: string[] = [];
    for (const { name, operation } of operations())
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        if (!status.startsWith('2')) continue;
        const description = (response as Json).description as string | undefined;
        if (!description?.trim() || description === 'Default Response') problems.push(`${name} ${status}`);
      }
    expect(problems).toEqual([]);
    expect(doc.paths['/v1/customers/{customerID}'].delete.responses['204'].description).toMatch(/No Content/);
    expect(doc.paths['/v1/customers'].post.responses['201'].description).toMatch(/Created/);
  });

  it('has a valid, realistic example on every property of every JSON body and response, problems included', () => {
    const problems: string[] = [];
    for (const { name, operation } of operations()) {
      for (const media of Object.values((operation.requestBody?.content ?? {}) as Json))
        exampleProblems(media.schema, `${name} body`, problems);
      for (const [status, response] of Object.entries(operation.responses as Json)) {
        for (const [type, media] of Object.entries(((response as Json).content ?? {}) as Json))
          if (type.includes('json')) exampleProblems((media as Json).schema, `${name} ${status}`, problems);
      }
    }
    expect(problems).toEqual([]);
  });

  it('has an example on every path parameter', () => {
    const problems = operations().flatMap(({ name, operation }) =>
      ((operation.parameters ?? []) as Json[])
        .filter((p) => p.in === 'path' && p.example === undefined && p.schema?.examples === undefined)
        .map((p) => `${name}: ${p.name}`),
    );
    expect(problems).toEqual([]);
  });

  it('tells the same story in its examples: wire names carry the same values across resources', () => {
    const body = doc.paths['/v1/customers'].post.requestBody.content['application/json'].schema;
    expect(body.properties.Name.examples).toEqual(['Ada']);
    expect(body.properties.Email.examples).toEqual(['ada@analytical-engines.example']);
    const payment = doc.paths['/v1/payments'].post.requestBody.content['application/json'].schema;
    expect(payment.properties.customerID.examples).toEqual([1042]);
    expect(payment.properties.Date.examples).toEqual(['2026-03-06']);
    // A package's Name is a plan's name, not a person's.
    expect(doc.components.schemas.Package.properties.Name.examples).toEqual(['Pro plan']);
  });

  it('explains authentication, paging, idempotency keys, dates, money and errors', () => {
    const text = doc.info.description as string;
    for (const heading of ['Authentication', 'Paging', 'Idempotency keys', 'Dates', 'Money', 'Errors'])
      expect(text).toContain(`## ${heading}`);
    expect(text).toMatch(/account id.*user name.*API key.*password/s);
    expect(text).toContain('Authorization: Bearer');
    expect(text).toContain('page_size');
    expect(text).toContain('Idempotency-Key');
    expect(text).toContain('Idempotent-Replayed: true');
    expect(text).toContain('application/problem+json');
    expect(doc.components.securitySchemes.basic.scheme).toBe('basic');
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer');
  });
});
