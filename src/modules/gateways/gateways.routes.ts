import { Type } from '@sinclair/typebox';
import type { App } from '../../http/types.ts';
import { PagingQuery, pageOf } from '../../http/schemas.ts';
import * as gateways from './gateway.service.ts';
import { GatewayIdParams, GatewayOut } from './gateways.schemas.ts';
import { toGatewayDto } from './gateways.serializer.ts';

const tags = ['Gateways'];

export function registerGatewaysRoutes(app: App): void {
  app.get(
    '/gateways',
    {
      schema: {
        summary: 'List gateways',
        operationId: 'listGateways',
        tags,
        description: "The account's gateways in creation order; the built-in test gateway comes first.",
        querystring: PagingQuery,
        response: { 200: Type.Array(GatewayOut) },
      },
    },
    async (request) => (await gateways.listGateways(request.ctx, pageOf(request.query))).map(toGatewayDto),
  );

  app.get(
    '/gateways/:gatewayID',
    {
      schema: {
        summary: 'Get a gateway',
        operationId: 'getGateway',
        description: 'One gateway: type, name and state (its settings are never returned).',
        tags,
        params: GatewayIdParams,
        response: { 200: GatewayOut },
      },
    },
    async (request) => toGatewayDto(await gateways.getGateway(request.ctx, request.params.gatewayID)),
  );
}
