import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadProviderApi } from './openApi.ts';
import type { ProviderApi } from './openApi.ts';

/**
 * Stripe's OpenAPI document as the simulator checks requests with: spec3 of 2022-04-12, the newest whole copy
 * (test/fixtures/README.md), with the changes Stripe's changelog made since to the requests the
 * driver sends, each named by its changelog entry. Nothing else is added: a field the driver sends that is neither
 * in the document nor here is refused.
 */

export const STRIPE_SPEC_PATH = fileURLToPath(
  new URL('../fixtures/providers/stripe/spec3.2022-04-12.json', import.meta.url),
);

export type { ProviderApi } from './openApi.ts';

interface Document {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>>;
}
interface Schema {
  properties: Record<string, unknown>;
}

const formBody = (document: Document, route: string): Schema =>
  document.paths[route]!.post!.requestBody!.content['application/x-www-form-urlencoded']!.schema;

/** What Stripe's changelog changed since 2022-04-12 in the requests the driver makes. */
const CHANGES: { entry: string; apply: (document: Document) => void }[] = [
  {
    // docs.stripe.com/changelog/dahlia/2026-07-29/allowed-payment-method-types-parameter
    entry: 'Adds allowed_payment_method_types to PaymentIntents and SetupIntents (2026-07-29.dahlia)',
    apply: (document) => {
      for (const route of ['/v1/payment_intents', '/v1/setup_intents']) {
        formBody(document, route).properties.allowed_payment_method_types = {
          type: 'array',
          items: { type: 'string', maxLength: 5000 },
        };
      }
    },
  },
  {
    // docs.stripe.com/changelog/endive/2026-09-30/removes-the-payment-method-types-parameter-from-payment-intents-and-setup-intents
    entry: 'Removes payment_method_types from PaymentIntents and SetupIntents writes (2026-09-30.endive)',
    apply: (document) => {
      for (const route of [
        '/v1/payment_intents',
        '/v1/setup_intents',
        '/v1/payment_intents/{intent}',
        '/v1/setup_intents/{intent}',
        '/v1/payment_intents/{intent}/confirm',
      ]) {
        delete formBody(document, route).properties.payment_method_types;
      }
    },
  },
];

let loaded: Promise<ProviderApi> | undefined;

/** The amended document, loaded once per worker (it is large and never changes). */
export function loadStripeApi(): Promise<ProviderApi> {
  loaded ??= (async () => {
    const document = JSON.parse(readFileSync(STRIPE_SPEC_PATH, 'utf8')) as Document;
    for (const change of CHANGES) change.apply(document);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'stripe-spec-')), 'spec3.amended.json');
    writeFileSync(file, JSON.stringify(document));
    return loadProviderApi(file);
  })();
  return loaded;
}
