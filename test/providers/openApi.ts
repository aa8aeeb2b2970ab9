import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { OpenAPIBackend } from 'openapi-backend';
import type { Operation } from 'openapi-backend';

/**
 * Checks requests and answers against a payment provider's own published OpenAPI document (the copies under
 * test/fixtures/providers, listed in test/fixtures/README.md), so that a driver is tested, without the internet,
 * against what the provider publishes rather than against what we believe it takes.
 *
 * - Routing and path, query and header parameters: openapi-backend's router and validator.
 * - Request bodies: our own Ajv over the operation's body schema, closed: every object schema that lists its
 *   properties and says nothing of others gets `additionalProperties: false`, recursively, so a misspelled field
 *   fails (providers' documents let unknown fields through). An object schema
 *   without listed properties (a free-form `metadata`) stays open, and members of an `allOf` stay open (closing
 *   each would refuse the properties of the others).
 * - Form-encoded bodies (Stripe's `application/x-www-form-urlencoded`, with bracket notation `metadata[key]=v`,
 *   `expand[]=a`, `items[0][price]=p`) are parsed into objects first and validated with types coerced from text.
 * - Answers: the response schema of the status (or `default`), as published (open).
 */

interface SchemaObject {
  type?: string | string[];
  properties?: Record<string, SchemaObject>;
  additionalProperties?: boolean | SchemaObject;
  items?: SchemaObject | SchemaObject[];
  allOf?: SchemaObject[];
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  not?: SchemaObject;
  [key: string]: unknown;
}

interface MediaType {
  schema?: SchemaObject;
}

interface OperationObject {
  operationId?: string;
  requestBody?: { required?: boolean; content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
}

export interface ProviderApi {
  documentPath: string;
  backend: OpenAPIBackend;
  /** Request bodies' closed validators by operation id and media type (json or form). */
  bodyValidators: Map<string, ValidateFunction>;
  responseValidators: Map<string, ValidateFunction | null>;
  ajv: Ajv;
  formAjv: Ajv;
}

export interface ProviderRequest {
  method: string;
  /** The full URL or its path with the query. */
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** The body as sent (text), or undefined. */
  body?: string;
}

/** JSON Schema's formats, and the providers' own: Stripe's `unix-time` (seconds) and `decimal` (a number as text). */
const withFormats = (ajv: Ajv): Ajv => {
  addFormats.default(ajv);
  ajv.addFormat('unix-time', { type: 'number', validate: (value: number) => Number.isInteger(value) });
  ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
  return ajv;
};

const newAjv = (coerceTypes: boolean): Ajv => {
  const ajv = withFormats(new Ajv({ strict: false, allErrors: true, coerceTypes, validateFormats: true }));
  // OpenAPI 3.0 keywords and vendor extensions Ajv does not know.
  ajv.addKeyword({ keyword: 'example' });
  return ajv;
};

/**
 * A deep copy of an OpenAPI 3.0 schema as JSON Schema for Ajv (`nullable: true` becomes a `null` type; beside no
 * type it says nothing), closed to unknown properties when `close` is set (see above). Cycles stay cycles.
 */
export function jsonSchemaOf(
  schema: SchemaObject,
  close: boolean,
  seen = new Map<SchemaObject, SchemaObject>(),
): SchemaObject {
  const known = seen.get(schema);
  if (known) return known;
  const copy: SchemaObject = { ...schema };
  seen.set(schema, copy);
  if (schema.nullable === true) {
    delete copy.nullable;
    if (typeof schema.type === 'string') copy.type = [schema.type, 'null'];
    if (Array.isArray(schema.enum)) copy.enum = [...(schema.enum as unknown[]), null];
  }
  const sub = (child: SchemaObject, closeChild = close) => jsonSchemaOf(child, closeChild, seen);
  if (schema.properties) {
    copy.properties = Object.fromEntries(
      Object.entries(schema.properties).map(([name, child]) => [name, sub(child)]),
    );
    if (close && schema.additionalProperties === undefined) copy.additionalProperties = false;
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    copy.additionalProperties = sub(schema.additionalProperties);
  }
  if (schema.items) {
    copy.items = Array.isArray(schema.items) ? schema.items.map((item) => sub(item)) : sub(schema.items);
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    const members = schema[key];
    if (members) copy[key] = members.map((member) => sub(member));
    // NOTE: Stripe's document marks a field that is an id or an object, or null, as `nullable` beside `anyOf`
    // with no type; OpenAPI 3.0.3 reads such `nullable` as nothing, Stripe's own libraries as "or null".
    if (members && schema.nullable === true && schema.type === undefined) {
      copy[key] = [...(copy[key] as SchemaObject[]), { type: 'null' }];
    }
  }
  if (schema.allOf) copy.allOf = schema.allOf.map((member) => sub(member, false));
  if (schema.not) copy.not = sub(schema.not, false);
  return copy;
}

const childrenOf = (schema: SchemaObject): SchemaObject[] => [
  ...Object.values(schema.properties ?? {}),
  ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties] : []),
  ...(Array.isArray(schema.items) ? schema.items : schema.items ? [schema.items] : []),
  ...(schema.anyOf ?? []),
  ...(schema.oneOf ?? []),
  ...(schema.allOf ?? []),
  ...(schema.not ? [schema.not] : []),
];

/**
 * The schema as Ajv can compile it: a dereferenced document's schemas may contain themselves (Stripe's `customer`
 * reaches `customer` again through its expandable fields), which Ajv cannot walk. Every schema reached more than
 * once becomes one entry of `definitions`, referred to by `$ref`, so the result is finite and each schema is
 * compiled once; vendor extensions (`x-…`) are left out.
 */
export function compilable(root: SchemaObject): SchemaObject {
  const incoming = new Map<SchemaObject, number>();
  const count = (node: SchemaObject) => {
    const seen = incoming.get(node);
    incoming.set(node, (seen ?? 0) + 1);
    if (seen === undefined) childrenOf(node).forEach(count);
  };
  count(root);
  const names = new Map<SchemaObject, string>();
  for (const [node, times] of incoming) if (times > 1) names.set(node, `s${names.size}`);
  const definitions: Record<string, SchemaObject> = {};
  const tree = (node: SchemaObject): SchemaObject => {
    // Vendor extensions say nothing to validation, and Stripe's (`x-expansionResources`) hold whole schemas.
    const copy: SchemaObject = Object.fromEntries(
      Object.entries(node).filter(([key]) => !key.startsWith('x-')),
    );
    const sub = (child: SchemaObject): SchemaObject => {
      const name = names.get(child);
      return name ? { $ref: `#/definitions/${name}` } : tree(child);
    };
    if (node.properties) {
      copy.properties = Object.fromEntries(
        Object.entries(node.properties).map(([key, child]) => [key, sub(child)]),
      );
    }
    if (typeof node.additionalProperties === 'object')
      copy.additionalProperties = sub(node.additionalProperties);
    if (node.items) copy.items = Array.isArray(node.items) ? node.items.map(sub) : sub(node.items);
    for (const key of ['anyOf', 'oneOf', 'allOf'] as const) if (node[key]) copy[key] = node[key].map(sub);
    if (node.not) copy.not = sub(node.not);
    return copy;
  };
  for (const [node, name] of names) definitions[name] = tree(node);
  const rootName = names.get(root);
  return { ...(rootName ? { $ref: `#/definitions/${rootName}` } : tree(root)), definitions };
}

const mediaKind = (contentType: string): 'json' | 'form' | undefined => {
  const type = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type === 'application/json' || type.endsWith('+json')) return 'json';
  if (type === 'application/x-www-form-urlencoded') return 'form';
  return undefined;
};

/**
 * Query parameters the provider documents elsewhere (its API reference pages) but its OpenAPI document lacks, by
 * operation id: each is named by the test that needs it, with where the provider documents it, so that the
 * departure from the published document is explicit rather than a loosened check.
 */
export type QueryAdditions = Readonly<Record<string, Readonly<Record<string, SchemaObject>>>>;

/** Loads the provider's document (YAML or JSON), dereferenced, with request bodies' validators closed. */
export async function loadProviderApi(
  documentPath: string,
  additions: QueryAdditions = {},
): Promise<ProviderApi> {
  const loader = new OpenAPIBackend({ definition: documentPath, quick: true, validate: false, strict: true });
  await loader.init();
  const ajv = newAjv(false);
  const formAjv = newAjv(true);
  const bodyValidators = new Map<string, ValidateFunction>();
  for (const operation of loader.getOperations()) {
    const content = (operation as OperationObject).requestBody?.content ?? {};
    for (const [contentType, media] of Object.entries(content)) {
      const kind = mediaKind(contentType);
      if (!kind || !media.schema || !operation.operationId) continue;
      const compiler = kind === 'form' ? formAjv : ajv;
      bodyValidators.set(
        `${operation.operationId} ${kind}`,
        compiler.compile(compilable(jsonSchemaOf(media.schema, true))),
      );
    }
    for (const [name, schema] of Object.entries(additions[operation.operationId ?? ''] ?? {})) {
      const paths = loader.definition.paths as Record<string, Record<string, { parameters?: unknown[] }>>;
      const declared = paths[operation.path]![operation.method]!;
      declared.parameters = [...(declared.parameters ?? []), { name, in: 'query', schema }];
    }
  }
  const backend = new OpenAPIBackend({
    definition: loader.definition,
    quick: true,
    strict: true,
    customizeAjv: (original) => withFormats(original as unknown as Ajv) as unknown as typeof original,
  });
  await backend.init();
  return { documentPath, backend, bodyValidators, responseValidators: new Map(), ajv, formAjv };
}

type FormValue = string | FormValue[] | { [key: string]: FormValue };

/** `a[b][0]=x&c[]=y` into `{a: {b: ['x']}, c: ['y']}`: numeric and empty brackets make arrays. */
export function parseFormBody(text: string): Record<string, FormValue> {
  const root: Record<string, FormValue> = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const match = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(rawKey);
    const path = match
      ? [match[1]!, ...[...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!)]
      : [rawKey];
    let node: Record<string, FormValue> | FormValue[] = root;
    path.forEach((segment, i) => {
      const last = i === path.length - 1;
      const nextIsArray = !last && /^\d*$/.test(path[i + 1]!);
      const key = Array.isArray(node) && segment === '' ? node.length : segment;
      const holder = node as Record<string | number, FormValue>;
      if (last) {
        holder[key] = value;
        return;
      }
      holder[key] ??= nextIsArray ? [] : {};
      node = holder[key] as Record<string, FormValue> | FormValue[];
    });
  }
  return root;
}

const describe = (where: string, errors: ErrorObject[] | null | undefined): string[] =>
  (errors ?? []).map((error) => {
    const extra =
      error.keyword === 'additionalProperties'
        ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
        : '';
    return `${where}${error.instancePath} ${error.message ?? error.keyword}${extra}`;
  });

/** The operation a request names, by method and URL; undefined when the document has none. */
export function findOperation(api: ProviderApi, method: string, url: string): Operation | undefined {
  const parsed = new URL(url, 'http://provider.invalid');
  return api.backend.router.matchOperation({
    method: method.toLowerCase(),
    path: parsed.pathname,
    query: parsed.search.slice(1),
    headers: {},
  });
}

/** Whether the operation (or the document, for an operation that says nothing) asks for credentials. */
const needsCredentials = (api: ProviderApi, operation: Operation): boolean => {
  const security = operation.security ?? api.backend.definition.security ?? [];
  return security.some((requirement) => Object.keys(requirement).length > 0);
};

/** Every way the request departs from the document: an unknown operation, parameters, the body. */
export function checkRequest(api: ProviderApi, request: ProviderRequest): string[] {
  const operation = findOperation(api, request.method, request.url);
  if (!operation?.operationId) return [`no operation ${request.method.toUpperCase()} ${request.url}`];
  const parsed = new URL(request.url, 'http://provider.invalid');
  const headers = Object.fromEntries(
    Object.entries(request.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const paramsResult = api.backend.validator.validateRequest(
    { method: request.method.toLowerCase(), path: parsed.pathname, query: parsed.search.slice(1), headers },
    operation,
  );
  const problems = describe(
    'request',
    (paramsResult.errors ?? []).filter(
      (error) =>
        !error.instancePath.startsWith('/requestBody') &&
        (error.params as { missingProperty?: string }).missingProperty !== 'requestBody',
    ),
  );
  if (needsCredentials(api, operation) && !headers.authorization) problems.push('no Authorization header');
  return [...problems, ...checkBody(api, operation as OperationObject & Operation, headers, request.body)];
}

function checkBody(
  api: ProviderApi,
  operation: OperationObject & Operation,
  headers: Record<string, string>,
  body: string | undefined,
): string[] {
  const declared = operation.requestBody;
  if (body === undefined || body === '') {
    return declared?.required ? ['body is required and missing'] : [];
  }
  if (!declared?.content) return ['the operation takes no body, one was sent'];
  const kind = mediaKind(headers['content-type'] ?? '');
  if (!kind) return [`unsupported Content-Type ${headers['content-type'] ?? '(none)'}`];
  const validate = api.bodyValidators.get(`${operation.operationId} ${kind}`);
  if (!validate) return [`the operation takes no ${kind} body`];
  let value: unknown;
  try {
    value = kind === 'json' ? JSON.parse(body) : parseFormBody(body);
  } catch (error) {
    return [`body is not JSON: ${(error as Error).message}`];
  }
  validate(value);
  return describe('body', validate.errors);
}

/** The operation by its id, or by `METHOD /path` (a path template or a concrete path). */
function operationOf(api: ProviderApi, operation: string): (OperationObject & Operation) | undefined {
  const byId = api.backend.router.getOperation(operation);
  if (byId) return byId as OperationObject & Operation;
  const [method, path] = operation.split(' ');
  if (!method || !path) return undefined;
  const found = api.backend.router
    .getOperations()
    .find((op) => op.method === method.toLowerCase() && op.path === path);
  return (found ?? findOperation(api, method, path)) as (OperationObject & Operation) | undefined;
}

/** One validator per published schema: operations answering the same object (Stripe's) share it. */
const answerValidators = new WeakMap<SchemaObject, ValidateFunction>();
function compiledAnswer(api: ProviderApi, schema: SchemaObject): ValidateFunction {
  const known = answerValidators.get(schema);
  if (known) return known;
  const compiled = api.ajv.compile(compilable(jsonSchemaOf(schema, false)));
  answerValidators.set(schema, compiled);
  return compiled;
}

/**
 * Every way an answer departs from the document's schema for its status (or `default`). A status the document
 * does not list, or lists without a JSON schema, is reported: such an answer must be compared with a published
 * sample instead.
 */
export function checkResponse(api: ProviderApi, operation: string, status: number, body: unknown): string[] {
  const op = operationOf(api, operation);
  if (!op?.operationId) return [`no operation ${operation}`];
  const cacheKey = `${op.operationId} ${status}`;
  if (!api.responseValidators.has(cacheKey)) {
    const response = op.responses?.[String(status)] ?? op.responses?.default;
    const schema = response?.content?.['application/json']?.schema;
    api.responseValidators.set(cacheKey, schema ? compiledAnswer(api, schema) : null);
  }
  const validate = api.responseValidators.get(cacheKey);
  if (!validate) return [`${op.operationId} documents no JSON answer for ${status}`];
  validate(body);
  return describe(`answer ${status}`, validate.errors);
}

const kindOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;

/**
 * Every way `actual` differs in shape from a provider's published sample answer: the same keys at every level of
 * objects, the same JSON types (a `null` on either side matches anything: a field empty in one answer and filled
 * in another), array items shaped like the sample's first item. For answers whose published schema is stricter
 * than the provider's own samples (Paystack's lists fields as required that its samples leave out).
 */
export function shapeProblems(actual: unknown, published: unknown, at = ''): string[] {
  const [kind, wanted] = [kindOf(actual), kindOf(published)];
  if (kind === 'null' || wanted === 'null') return [];
  if (kind !== wanted) return [`${at || '/'} is ${kind}, the sample's is ${wanted}`];
  if (kind === 'array') {
    const sampleItem = (published as unknown[])[0];
    if (sampleItem === undefined) return [];
    return (actual as unknown[]).flatMap((item, i) => shapeProblems(item, sampleItem, `${at}/${i}`));
  }
  if (kind !== 'object') return [];
  const [mine, theirs] = [actual as Record<string, unknown>, published as Record<string, unknown>];
  const missing = Object.keys(theirs).filter((key) => !(key in mine));
  const extra = Object.keys(mine).filter((key) => !(key in theirs));
  return [
    ...missing.map((key) => `${at}/${key} is missing (the sample has it)`),
    ...extra.map((key) => `${at}/${key} is not in the sample`),
    ...Object.keys(theirs)
      .filter((key) => key in mine)
      .flatMap((key) => shapeProblems(mine[key], theirs[key], `${at}/${key}`)),
  ];
}
