import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createComponent, createCustomer, createPlan, ok, subscribe } from '../helpers/billing.ts';
import { issuedInvoice } from '../helpers/invoices.ts';
import type { TestAccount } from '../helpers/service.ts';
import { useTestService } from '../helpers/testService.ts';

// No 500 for any body (docs/spec-decisions.md, "Request bodies"): a name every JavaScript object inherits
// (`constructor`, `__proto__`, `toString`...) is a field, a query parameter or a value like any other. Before, a body
// field named `constructor` found Object's constructor in a lookup table and answered 500. Every operation of the API
// reference gets bodies and query strings holding such names, as field names at any depth of its request schema
// (objects and list items) and as values, and none answers 5xx.

type Json = Record<string, any>;

const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'isPrototypeOf',
  '__defineGetter__',
] as const;

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

/** A test account: test clocks and simulations answer 403 to any other before they read a body. */
let account: TestAccount;
let doc: Json;
/** The ids of objects the file made, by path parameter; any other parameter is its example (most likely a 404). */
const ids = new Map<string, number>();
const t = useTestService();
beforeAll(async () => {
  account = await t.newAccount('Prototype keys', { isTest: true });
  doc = (await t.request('GET', '/openapi.json', { auth: false })).body as Json;
  const customerId = await createCustomer(account);
  const plan = await createPlan(account);
  const subscription = await subscribe(account, customerId, plan);
  const invoice = await issuedInvoice(account, { customerId, amount: '12.50' });
  const component = await createComponent(account);
  const gateways = await ok(account, 'GET', '/v1/gateways');
  ids.set('customerID', customerId);
  ids.set('packageID', plan.packageId);
  ids.set('subscriptionID', subscription.subscriptionID);
  ids.set('invoiceID', invoice.invoiceID);
  ids.set('componentID', component.componentID);
  ids.set('gatewayID', gateways[0].gatewayID);
});

/** A schema with its `$ref` followed, within the document. */
function resolved(schema: Json | undefined): Json {
  let current = schema ?? {};
  for (let hops = 0; typeof current.$ref === 'string' && hops < 20; hops++) {
    current = current.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((node: Json | undefined, step: string) => node?.[step], doc) as Json;
  }
  return current ?? {};
}

const firstExample = (schema: Json): unknown =>
  Array.isArray(schema.examples) && schema.examples.length > 0 ? schema.examples[0] : schema.example;

/**
 * A value for a schema: an object holds every property it declares (so that a name can be placed at every depth of
 * the schema), a list one item, a leaf its example or a plain value of its type.
 */
function sampleOf(given: Json | undefined, depth = 0): unknown {
  const schema = resolved(given);
  const branches = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (branches) {
    const branch = branches.map(resolved).find((b) => b.type !== 'null') ?? branches[0];
    return sampleOf(branch, depth);
  }
  if (schema.properties && depth < 8) {
    return Object.fromEntries(
      Object.entries(schema.properties as Json).map(([name, property]) => [
        name,
        sampleOf(property as Json, depth + 1),
      ]),
    );
  }
  const example = firstExample(schema);
  if (example !== undefined) return structuredClone(example);
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = ([] as string[]).concat(schema.type ?? []).find((name) => name !== 'null');
  if (type === 'array') return depth < 8 ? [sampleOf(schema.items as Json, depth + 1)] : [];
  if (type === 'object') return {};
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  return 'text';
}

/** The objects and lists of a value, outermost first. */
function containersOf(value: unknown): (Json | unknown[])[] {
  const found: (Json | unknown[])[] = [];
  const pending = [value];
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    if (next === null || typeof next !== 'object') continue;
    found.push(next as Json | unknown[]);
    pending.push(...Object.values(next));
  }
  return found;
}

/** Where a value holds text: an object and its key, or a list and its index. */
function textsOf(value: unknown): [Json, string][] {
  return containersOf(value).flatMap((container) =>
    Object.entries(container)
      .filter(([, item]) => typeof item === 'string')
      .map(([key]) => [container as Json, key] as [Json, string]),
  );
}

/** An own property, even one named `__proto__` (an assignment would set the object's prototype instead). */
const setOwn = (object: object, name: string, value: unknown) =>
  Object.defineProperty(object, name, { value, enumerable: true, writable: true, configurable: true });

const prototypeName = fc.constantFrom(...PROTOTYPE_NAMES);
const placedValue = fc.oneof(
  prototypeName,
  fc.constantFrom(1, null, true, {}, [], { prototype: { polluted: true } }),
  prototypeName.map((name) => setOwn({}, name, 'x')),
);

/**
 * Changes to a sample: names as fields of its objects (or new items of its lists), refused as unknown fields unless
 * the object takes any field; or names as its texts, which leave a body the schema may accept, so they reach the
 * handlers' own lookups (a code, a method, a type named `constructor`).
 */
interface Change {
  kind: 'field' | 'text';
  where: number;
  name: string;
  value: unknown;
}
const changeLists: fc.Arbitrary<Change[]> = fc.constantFrom('field' as const, 'text' as const).chain((kind) =>
  fc.array(fc.record({ kind: fc.constant(kind), where: fc.nat(), name: prototypeName, value: placedValue }), {
    minLength: 1,
    maxLength: 3,
  }),
);

/** A copy through JSON, which keeps a key named `__proto__` as an own key (as the service's parser sees it). */
const copy = (value: unknown): unknown =>
  value === undefined ? undefined : JSON.parse(JSON.stringify(value));

function applied(sample: unknown, changes: readonly Change[]): unknown {
  const body = copy(sample);
  for (const { kind, where, name, value } of changes) {
    const texts = kind === 'text' ? textsOf(body) : [];
    if (texts.length > 0) {
      const [holder, key] = texts[where % texts.length]!;
      holder[key] = name;
      continue;
    }
    const containers = containersOf(body);
    const container = containers[where % Math.max(1, containers.length)];
    if (Array.isArray(container)) container.push(setOwn({}, name, copy(value)));
    else if (container) setOwn(container, name, copy(value));
  }
  return body;
}

/** A sample whose ids (`customerID`, `packageID`...) are those of objects the file made, so that it can be accepted. */
function withOurIds(sample: unknown): unknown {
  const body = copy(sample);
  for (const container of containersOf(body))
    for (const key of Object.keys(container))
      if (!Array.isArray(container) && ids.has(key) && typeof container[key] === 'number')
        container[key] = ids.get(key);
  return body;
}

interface Operation {
  method: string;
  path: string;
  parameters: Json[];
  /** Sample bodies: the schema's example (when it has one) and one with every property the schema declares. */
  samples: unknown[];
}

function operations(): Operation[] {
  return Object.entries(doc.paths as Json)
    .flatMap(([path, item]) =>
      Object.entries(item as Json)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => {
          const schema = (operation as Json).requestBody?.content?.['application/json']?.schema as
            Json | undefined;
          const example = schema ? firstExample(resolved(schema)) : undefined;
          return {
            method: method.toUpperCase(),
            path,
            parameters: ((operation as Json).parameters ?? []).map(resolved) as Json[],
            samples: schema
              ? [...(example === undefined ? [] : [example]), sampleOf(schema)].map(withOurIds)
              : [],
          };
        }),
    )
    .sort((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));
}

/** What one run sends: a sample body with changes, a query, and maybe a prototype name as every path id. */
interface Sent {
  sample: unknown;
  changes: Change[];
  query: [string, string][];
  nameAsId: string | null;
}

/** The request's URL: path parameters an id the file made, the example, or (when asked) a prototype name. */
function urlOf(operation: Operation, nameAsId: string | undefined, query: [string, string][]): string {
  const path = operation.path.replace(/\{(\w+)\}/g, (_whole, name: string) => {
    const parameter = operation.parameters.find((p) => p.in === 'path' && p.name === name);
    const value = nameAsId ?? ids.get(name) ?? parameter?.example ?? parameter?.schema?.examples?.[0] ?? 1;
    return encodeURIComponent(String(value));
  });
  const search = new URLSearchParams(query).toString();
  return search ? `${path}?${search}` : path;
}

describe('names every object inherits, at every depth of every operation', () => {
  it('never answer 5xx, as fields, values, query parameters or path ids', async () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(200);
    const wrong: string[] = [];
    let sent = 0;
    let accepted = 0;
    for (const operation of all) {
      const queryNames = operation.parameters.filter((p) => p.in === 'query').map((p) => p.name as string);
      const hasPath = operation.path.includes('{');
      const query = fc.array(
        fc.tuple(
          queryNames.length > 0 ? fc.oneof(prototypeName, fc.constantFrom(...queryNames)) : prototypeName,
          fc.oneof(prototypeName, fc.constantFrom('1', '', 'x')),
        ),
        { maxLength: 3 },
      );
      const request: fc.Arbitrary<Sent> = fc.record({
        sample: operation.samples.length > 0 ? fc.constantFrom(...operation.samples) : fc.constant(undefined),
        changes: changeLists,
        query: queryNames.length > 0 ? query : fc.constant([] as [string, string][]),
        nameAsId: hasPath ? fc.option(prototypeName, { freq: 4 }) : fc.constant(null),
      });
      // Every name at once at the top, then placements fast-check chooses.
      const everyName: Sent = {
        sample: operation.samples.at(-1),
        changes: PROTOTYPE_NAMES.map((name) => ({ kind: 'field' as const, where: 0, name, value: 'x' })),
        query: PROTOTYPE_NAMES.map((name) => [name, name] as [string, string]),
        nameAsId: null,
      };
      const numRuns = operation.samples.length > 0 ? 8 : queryNames.length > 0 || hasPath ? 3 : 1;
      await fc.assert(
        fc.asyncProperty(request, async ({ sample, changes, query, nameAsId }) => {
          const url = urlOf(operation, nameAsId ?? undefined, query);
          const body = sample === undefined ? undefined : JSON.stringify(applied(sample, changes));
          const res = await account.request(
            operation.method,
            url,
            body === undefined ? {} : { rawBody: body },
          );
          sent++;
          if (res.status < 300) accepted++;
          if (res.status >= 500)
            wrong.push(
              `${operation.method} ${url} ${body?.slice(0, 300) ?? ''}: ${res.status} ${res.text.slice(0, 200)}`,
            );
          return true;
        }),
        { numRuns, examples: [[everyName]] },
      );
    }
    expect(wrong).toEqual([]);
    // The service is still up, and answers the account as before.
    expect((await account.request('GET', '/v1/customers')).status).toBe(200);
    expect(sent).toBeGreaterThan(all.length * 3);
    // Not every request was refused before it reached an operation's own code.
    expect(accepted).toBeGreaterThan(40);
  });
});
