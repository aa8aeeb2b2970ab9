import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Text } from '../../http/schemas.ts';

export const GoLiveBody = Type.Object({
  Name: Type.Optional(
    Text(255, { minLength: 1, description: "The live account's name; the test account's when left out" }),
  ),
});
export type GoLiveBody = Static<typeof GoLiveBody>;

const Count = (description: string) => Type.Integer({ minimum: 0, description });

export const WentLiveOut = Type.Object({
  testAccountID: Id({ description: 'The test account the live account was made from' }),
  liveAccountID: Id({ description: 'The new live account' }),
  ApiKey: Type.String({ description: "The live account's first API key, shown this once" }),
  Copied: Type.Object(
    {
      Currencies: Count('Currencies enabled'),
      TaxSettings: Count('Tax settings, with their rules'),
      BillableMetrics: Count('Billable metrics'),
      PackageGroups: Count('Package groups'),
      Packages: Count('Packages, with their versions, rates and terms'),
      Components: Count('Components, with their versions, currencies and brackets'),
      Features: Count("Features, with their packages' values"),
      Coupons: Count('Coupons, none redeemed'),
    },
    { description: 'How many of each the live account was given' },
  ),
  WebhookEndpoints: Type.Array(
    Type.Object({
      webhookEndpointID: Id(),
      Url: Type.String(),
      Secret: Type.String({ description: "The copy's own signing secret, shown this once" }),
    }),
    { description: 'The copies of the test account’s endpoints, disabled until confirmed' },
  ),
  ToDo: Type.Array(Type.String(), {
    description: 'What is left to do by hand, in order (docs/going-live.md)',
  }),
});
export type WentLiveOut = Static<typeof WentLiveOut>;
