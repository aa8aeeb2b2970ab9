import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { App } from './types.ts';
import { EXAMPLES } from './openapi.examples.ts';
import { TAG_EXAMPLES } from './openapi.tagExamples.ts';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from './schemas.ts';

const DESCRIPTION = `
Recurring billing: customers, a catalogue of packages and components, subscriptions billed on schedule,
invoices, and the money that pays them (payments, credit notes, adjustments).

## Authentication
Every \`/v1\` request carries an API key, in either of two ways:

- **HTTP Basic**, the original service's scheme: the **account id** as user name and the **API key** as password
  (\`curl -u 7:bk_... https://billing.example/v1/customers\`);
- **Bearer**: \`Authorization: Bearer bk_...\`.

Keys are made with \`billing key create --account ID\` and revoked with \`billing key revoke\` (at once). No or
unreadable credentials are a 401 \`credentials_required\`, wrong ones a 401 \`invalid_credentials\`. A key sees only
its own account: another account's ids answer 404, exactly as ids that do not exist.

## Paging
Lists take \`page\` (from 1) and \`page_size\` (default ${PAGE_SIZE_DEFAULT}, at most ${PAGE_SIZE_MAX}) and are ordered
by creation. A page past the end is an empty array; a value out of range is a 422 naming the parameter.

## Idempotency keys
Send \`Idempotency-Key: <unique string>\` (1 to 255 characters) with a POST to make retrying it safe. The first
request with a key runs; a request with the same key, method, path and JSON body gets the first response again,
marked \`Idempotent-Replayed: true\`, for 24 hours. The same key with a different request is a 409
\`idempotency_key_reused\`; while the first request still runs, a retry is a 409 \`idempotency_key_in_progress\`. A
5xx releases the key. Payments, credit notes and adjustments record the response in the same transaction as the
money, so a retry can never record a payment twice.

## Dates
Responses give instants in ISO 8601, in UTC with milliseconds (\`2026-03-05T14:23:37.308Z\`). Requests accept an
ISO 8601 date-time with an offset or \`Z\`, one without an offset (wall time in the account's time zone), a bare
date \`2026-03-05\` or \`05 Mar 2026\` (both midnight in the account's time zone). Billing days (invoice dates,
renewals) are calendar days in the account's time zone (\`GET /v1/account\`).

## Money
Amounts are JSON numbers in the currency's major unit (\`25.5\` is 25.50 USD). The amounts of payments, credit
notes, adjustments, invoice lines and component prices may also be sent as decimal strings (\`"25.50"\`). A payment,
credit note or adjustment with more decimals than its currency has (\`10.005\` USD) is a 422: money received is
never rounded. Prices and quantities carry up to 4 decimals; every amount is kept as an exact integer of the
currency's minor unit, each invoice line is rounded once (half away from zero), and totals are sums of rounded
lines. Tax rates (\`Perc\`) are fractions: \`0.2\` is 20%.

## Errors
Errors are \`application/problem+json\` (RFC 9457): \`type\`, \`title\`, \`status\`, \`detail\`, a stable snake_case
\`code\`, and for invalid values \`fields: [{"field": "Email", "message": "..."}]\` naming each field as sent.
A body field the operation does not define is refused the same way, naming the field and the one it most likely
meant (\`{"field": "Emial", "message": "unknown field; did you mean Email?"}\`); the fields of the resource as it is
returned (\`customerID\`, \`Balance\`...) may be sent back and are ignored, and query strings ignore names they do
not know. Every problem also carries the original service's \`Errors: [{"Message": "..."}]\`. Statuses: 400
malformed JSON, 401 credentials, 404 unknown resource (or another account's), 409 conflict with the current state
(a taken Reference, a reused idempotency key), 413 body too large, 415 a body that is not JSON (the bank's files
also as XML or text), 422 invalid values, 500 only for a fault of ours (the detail quotes the request id, also sent
as \`X-Request-Id\`).
`.trim();

/** The tags in the order the reference shows them, each with what a reader needs before its operations. */
const TAGS = [
  [
    'Customers',
    'The people and businesses you bill, their custom fields, and their status (archive, suspend).',
  ],
  [
    'Customer contacts',
    "Other people at a customer's who receive invoices, with optional portal credentials.",
  ],
  ['Customer notes', 'Free-text notes kept against a customer (calls, queries, disputes).'],
  ['Account', 'Your own account: time zone, invoice defaults, and the seller details printed on invoices.'],
  ['Currencies', 'The currencies enabled for the account; customers, packages and money use one of them.'],
  ['Countries', 'ISO 3166 countries and their subdivisions, for addresses and tax rules.'],
  ['Tax settings', 'Named taxes with rules by country and state; a rate applies to the lines of an invoice.'],
  ['Package groups', 'Groups that organise packages and components.'],
  [
    'Packages',
    'What customers subscribe to: a package has versions, each with rates per currency and rate terms.',
  ],
  ['Package versions', "A package's versions: a new price is a new version, and subscriptions keep theirs."],
  [
    'Components',
    'Add-ons of a subscription priced by graduated (unit) or volume brackets, each with an optional flat fee, ' +
      'by stairstep (one flat fee per bracket) or by package (blocks of units, partial blocks rounded up): ' +
      'quantities, metered usage, opt-ins.',
  ],
  [
    'Billable metrics',
    'What a metered component counts from usage events: a Code, an aggregation (count, sum, max, unique_count, ' +
      'latest, weighted_sum), the property it reads, filters and a group.',
  ],
  [
    'Subscriptions',
    'A customer on a package rate term: billed by the bill run every term, changed, cancelled, previewed.',
  ],
  [
    'Features',
    'What packages give (on/off, a limit per billing period on a metric, a configuration value), and overrides ' +
      'of it on one subscription (docs/usage.md, "Entitlements").',
  ],
  [
    'Entitlements',
    "What a customer's live subscriptions give, one feature's check, and the atomic check-and-record of usage.",
  ],
  [
    'Usage alerts',
    "Thresholds on a subscription's usage so far in its period, a quantity or an amount: reaching one emits " +
      'usage.threshold_crossed and may e-mail the customer, once a period (docs/usage.md, "Alerts").',
  ],
  [
    'Coupons',
    "A percentage or an amount off subscriptions' invoices for one, N or every billed period, redeemed on a " +
      'customer or a subscription and applied by the bill run as a discount line (docs/credits.md, "Coupons").',
  ],
  [
    'Prepaid credit',
    'Wallets of prepaid credit per customer and currency, credit grants (free, or bought with a paid top-up) ' +
      'that pay invoices as they are issued, and their journal (docs/credits.md).',
  ],
  [
    'Invoices',
    'Invoices made by the bill run or by hand: lines, taxes, totals, balance, status, PDF and e-mail.',
  ],
  ['Recurring invoices', 'The same charges invoiced every period, without a package.'],
  [
    'Payment methods',
    "A customer's cards (stored as a gateway token) and bank accounts (encrypted at rest).",
  ],
  [
    'Gateways',
    'The payment gateways of the account: the built-in test simulator, manual reconciliation, bank files.',
  ],
  [
    'eMandates',
    "A debtor's signed authority to debit a bank account: created by your server, signed on our hosted page.",
  ],
  ['Payments', 'Money received: allocated to invoices by hand or automatically, changing their balances.'],
  ['Credit notes', 'Credit given to a customer, allocated to invoices like a payment.'],
  [
    'Tax credit notes',
    'Every credit that reduces a taxed supply, with the invoices it corrects and the VAT it takes off; as PDF.',
  ],
  [
    'Reports',
    'The VAT report of a tax period: the VAT201 return’s sales boxes, with every document they sum.',
  ],
  [
    'Adjustments',
    'Positive adjustments raise what a customer owes (opening balance, refund); negative lower it.',
  ],
  [
    'Statements',
    "A customer's statement of account: opening balance, every record with a running balance, ageing; JSON or PDF.",
  ],
  [
    'Batches',
    'Bank debits collected together: lines are Pending payments until the bank answers; bank files and returns.',
  ],
  [
    'Capture widget',
    'A hosted frame that captures a card (and may charge it) on your page; you confirm and link it from your server.',
  ],
  [
    'Customer portal',
    "Where a customer's contacts sign in to see their invoices: single-use sign-in links made by your server.",
  ],
  [
    'Usage events',
    'What customers use, sent as it happens: counted once per transaction_id, kept by the hour for billing.',
  ],
  ['Test clock', "A test account's own clock: advance it to run the real bill run for every day passed."],
  [
    'Events',
    'What happened in the account (every change, with the resource as the API shows it) and who did it (audit log).',
  ],
  [
    'Webhook endpoints',
    'URLs that receive signed events (Standard Webhooks): their deliveries and attempts, resend and recover.',
  ],
].map(([name, description]) => ({ name: name!, description: description! }));

const STATUS_LABELS: Record<string, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No Content: done',
};

type Json = Record<string, unknown>;

function typesOf(schema: Json): string[] {
  return ([] as unknown[]).concat(schema.type ?? []).map(String);
}

function exampleFor(name: string, schema: Json, tag: string, shared?: string): unknown {
  // The first table that names it wins, even with null (a field that is empty in that context).
  const key = [`${shared}.${name}`, `${tag}.${name}`].find((k) => Object.hasOwn(TAG_EXAMPLES, k));
  const value = key === undefined ? EXAMPLES[name] : TAG_EXAMPLES[key];
  if (value === undefined) return Array.isArray(schema.enum) ? schema.enum[0] : undefined;
  if (schema.format === 'date-time' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value))
    return `${value}T00:00:00.000Z`;
  // An identifier the wire returns as text (countryStateID of a customer) is shown as text.
  const types = typesOf(schema);
  if (
    typeof value === 'number' &&
    types.includes('string') &&
    !types.some((t) => t === 'integer' || t === 'number')
  )
    return String(value);
  return value;
}

/**
 * Puts an example on every property the tables above name, in place. The document is built from copies of the
 * route schemas, so validation and serialization never see these. A shared schema (`$ref`) is described once,
 * in the words of the first tag that uses it.
 */
function addExamples(
  schema: unknown,
  tag: string,
  components: Json,
  seen: Set<string>,
  shared?: string,
): void {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return;
  const node = schema as Json;
  if (typeof node.$ref === 'string') {
    const name = node.$ref.replace('#/components/schemas/', '');
    if (seen.has(name)) return;
    seen.add(name);
    addExamples(components[name], tag, components, seen, name);
    return;
  }
  for (const [name, property] of Object.entries((node.properties as Json | undefined) ?? {})) {
    const described = property as Json;
    addExamples(described, tag, components, seen, shared);
    if (isLeaf(described) && described.examples === undefined) {
      const example = exampleFor(name, described, tag, shared);
      if (example !== undefined) described.examples = [example];
    }
  }
  addExamples(node.items, tag, components, seen, shared);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const member of (node[key] as unknown[] | undefined) ?? [])
      addExamples(member, tag, components, seen, shared);
}

/** A property holding a value rather than further properties (an object, a list of objects, a shared schema). */
export function isLeaf(schema: Json): boolean {
  if (schema.$ref || schema.properties || schema.anyOf || schema.oneOf || schema.allOf) return false;
  const types = typesOf(schema);
  if (types.includes('object')) return false;
  const items = schema.items as Json | undefined;
  return !(types.includes('array') && items && !isLeaf(items));
}

type Operation = {
  tags?: string[];
  parameters?: Json[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
};

function describeOperations(document: Json): Json {
  const components = ((document.components as Json | undefined)?.schemas as Json | undefined) ?? {};
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, Operation>>)) {
    if (!path.startsWith('/v1') && !path.startsWith('/widget')) continue;
    for (const operation of Object.values(item)) {
      const tag = operation.tags?.[0] ?? '';
      for (const parameter of operation.parameters ?? []) {
        const schema = parameter.schema as Json | undefined;
        const example = schema && exampleFor(String(parameter.name), schema, tag);
        if (example !== undefined && parameter.example === undefined) parameter.example = example;
      }
      for (const media of Object.values(operation.requestBody?.content ?? {}))
        addExamples(media.schema, tag, components, seen);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        if (!response.description || response.description === 'Default Response')
          response.description = STATUS_LABELS[status] ?? 'Success';
        for (const media of Object.values(response.content ?? {}))
          addExamples(media.schema, tag, components, seen);
      }
      // Every /v1 operation may answer with a problem (validation does not use this).
      operation.responses = {
        ...operation.responses,
        '4XX': {
          description: 'A problem: invalid credentials or values, an unknown resource, a conflict',
          content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
        },
      };
    }
  }
  return document;
}

/** The OpenAPI document at /openapi.json, generated from the route schemas, and the reference at /docs. */
export async function registerOpenApi(app: App): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Billing service API', version: '1', description: DESCRIPTION },
      tags: TAGS,
      components: {
        securitySchemes: {
          basic: {
            type: 'http',
            scheme: 'basic',
            description: 'User name: the account id (e.g. 7); password: an API key (bk_...)',
          },
          bearer: { type: 'http', scheme: 'bearer', description: 'An API key (bk_...)' },
        },
      },
      security: [{ basic: [] }, { bearer: [] }],
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documents) =>
      'openapiObject' in documents
        ? describeOperations(documents.openapiObject as Json)
        : documents.swaggerObject,
  });
  // Swagger UI serves its own scripts and styles from the package: the page works with no internet access.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      // Without the top bar: it offers to load any other document by URL, which readers of ours do not need.
      layout: 'BaseLayout',
      docExpansion: 'list',
      deepLinking: true,
      displayOperationId: true,
      defaultModelsExpandDepth: 0,
      filter: true,
      tryItOutEnabled: false,
      persistAuthorization: false,
    },
  });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
