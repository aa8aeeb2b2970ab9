import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { NoContent, PagingQuery, pageOf } from '../../http/schemas.ts';
import * as features from './feature.service.ts';
import * as values from './featureValue.service.ts';
import type { FeatureValueOwner } from './feature.ts';
import {
  FeatureBody,
  FeatureIdParams,
  FeatureOut,
  FeatureValueBody,
  FeatureValueOut,
  PackageFeatureParams,
  PackageParams,
  SubscriptionFeatureParams,
  SubscriptionParams,
} from './features.schemas.ts';
import {
  featureInputFromWire,
  grantInputFromWire,
  toFeatureDto,
  toFeatureValueDto,
} from './features.serializer.ts';

const tags = ['Features'];

/** Features, and their values on packages and subscriptions (docs/usage.md, "Entitlements"). */
export function registerFeatureRoutes(app: App): void {
  registerFeatureCrud(app);
  registerValueRoutes(app, 'package');
  registerValueRoutes(app, 'subscription');
}

function registerFeatureCrud(app: App): void {
  app.get(
    '/features',
    {
      schema: {
        summary: 'List features',
        operationId: 'listFeatures',
        description: "The account's features in creation order.",
        tags,
        querystring: PagingQuery,
        response: { 200: Type.Array(FeatureOut) },
      },
    },
    async (request) => (await features.listFeatures(request.ctx, pageOf(request.query))).map(toFeatureDto),
  );

  app.get(
    '/features/:featureID',
    {
      schema: {
        summary: 'Get a feature',
        operationId: 'getFeature',
        description: 'One feature, with the code of the metric a limit feature limits.',
        tags,
        params: FeatureIdParams,
        response: { 200: FeatureOut },
      },
    },
    async (request) => toFeatureDto(await features.getFeature(request.ctx, request.params.featureID)),
  );

  app.post(
    '/features',
    {
      schema: {
        summary: 'Create a feature',
        operationId: 'createFeature',
        description:
          'A feature packages give: boolean (on/off), limit (a quantity per billing period of a metric), or config (a value).',
        tags,
        body: FeatureBody,
        response: { 201: FeatureOut },
      },
    },
    async (request, reply) =>
      reply
        .code(201)
        .send(toFeatureDto(await features.createFeature(request.ctx, featureInputFromWire(request.body)))),
  );

  app.put(
    '/features/:featureID',
    {
      schema: {
        summary: 'Replace a feature',
        operationId: 'editFeature',
        description: "Changes a feature's code, name, description or metric; its Type is fixed once made.",
        tags,
        params: FeatureIdParams,
        body: FeatureBody,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await features.updateFeature(request.ctx, request.params.featureID, featureInputFromWire(request.body));
      return reply.code(204).send(null);
    },
  );

  app.delete(
    '/features/:featureID',
    {
      schema: {
        summary: 'Delete a feature',
        operationId: 'deleteFeature',
        description: 'Deletes a feature no package or subscription gives (409 otherwise).',
        tags,
        params: FeatureIdParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      await features.deleteFeature(request.ctx, request.params.featureID);
      return reply.code(204).send(null);
    },
  );
}

/** A package's values (all its versions alike), or a subscription's overrides of its package's values. */
function registerValueRoutes(app: App, kind: FeatureValueOwner['type']): void {
  const base =
    kind === 'package' ? '/packages/:packageID/features' : '/subscriptions/:subscriptionID/features';
  const owner = (params: { packageID?: number; subscriptionID?: number }): FeatureValueOwner =>
    kind === 'package'
      ? { type: 'package', id: params.packageID! }
      : { type: 'subscription', id: params.subscriptionID! };
  const what = kind === 'package' ? 'package' : 'subscription (overriding its package)';
  const name = kind === 'package' ? 'Package' : 'Subscription';

  app.get(
    base,
    {
      schema: {
        summary: `List a ${kind}'s feature values`,
        operationId: `list${name}FeatureValues`,
        description: `The feature values the ${what} has, by feature.`,
        tags,
        params: kind === 'package' ? PackageParams : SubscriptionParams,
        response: { 200: Type.Array(FeatureValueOut) },
      },
    },
    async (request) =>
      (await values.listFeatureValues(request.ctx, owner(request.params as never))).map(toFeatureValueDto),
  );

  app.put(
    `${base}/:featureCode`,
    {
      schema: {
        summary: `Set a feature's value on a ${kind}`,
        operationId: `set${name}FeatureValue`,
        description: `Gives the feature to the ${what}, replacing its value if it had one.`,
        tags,
        params: kind === 'package' ? PackageFeatureParams : SubscriptionFeatureParams,
        body: FeatureValueBody,
        response: { 200: FeatureValueOut },
      },
    },
    async (request) => {
      const params = request.params as { featureCode: string };
      return toFeatureValueDto(
        await values.setFeatureValue(
          request.ctx,
          owner(request.params as never),
          params.featureCode,
          grantInputFromWire(request.body),
        ),
      );
    },
  );

  app.delete(
    `${base}/:featureCode`,
    {
      schema: {
        summary: `Remove a feature's value from a ${kind}`,
        operationId: `remove${name}FeatureValue`,
        description:
          kind === 'package'
            ? 'The package no longer gives the feature.'
            : "The subscription follows its package's value again.",
        tags,
        params: kind === 'package' ? PackageFeatureParams : SubscriptionFeatureParams,
        response: NoContent,
      },
    },
    async (request, reply) => {
      const params = request.params as { featureCode: string };
      await values.removeFeatureValue(request.ctx, owner(request.params as never), params.featureCode);
      return reply.code(204).send(null);
    },
  );
}
