import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../context.ts';
import { problem, sendProblem } from '../../http/problem.ts';
import type { App } from '../../http/types.ts';
import type { Db } from '../../storage/database.ts';
import { findGatewayForWebhook, getGateway, isGatewayUsable, readGatewayWebhook } from '../gateways/index.ts';
import { applyChargeEvent } from './chargeEvents.service.ts';

/** A provider's webhook body at most: their events are a few kilobytes. */
const WEBHOOK_BODY_LIMIT = 256 * 1024;

export interface GatewayWebhookDeps {
  db: Db;
  /** A context acting for the gateway's account, as the service acting on its own (no actor). */
  contextFor(accountId: number, request: FastifyRequest): Promise<ServiceContext>;
}

/**
 * POST /gateway-webhooks/{GatewayToken}: a payment provider's webhook (docs/gateways.md, "Late events"). No API
 * key: the provider signs the body, and the gateway's driver checks the signature on the exact bytes received with
 * the provider's own scheme (Stripe's signed timestamp, Paystack's HMAC-SHA512) before anything is applied. The
 * events it tells are applied as the daily read's are, each once. A body whose signature does not match is a 400
 * and changes nothing; an unknown token a 404, the same for every account.
 */
export async function registerGatewayWebhookRoutes(app: App, deps: GatewayWebhookDeps): Promise<void> {
  await app.register(async (scope) => {
    // The signature covers the bytes as sent: the body is kept raw, whatever its content type says.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      '*',
      { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    scope.post(
      '/gateway-webhooks/:GatewayToken',
      {
        schema: { hide: true, params: Type.Object({ GatewayToken: Type.String({ maxLength: 64 }) }) },
      },
      async (request, reply) => {
        const { GatewayToken } = request.params as { GatewayToken: string };
        const owner = await findGatewayForWebhook(deps.db, GatewayToken);
        if (!owner) return sendProblem(reply, problem(404, 'not_found', 'No gateway has this token'));
        const ctx = await deps.contextFor(owner.accountId, request);
        const gateway = await getGateway(ctx, owner.gatewayId);
        const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        const headers = Object.fromEntries(
          Object.entries(request.headers).map(([name, value]) => [
            name,
            Array.isArray(value) ? value[0] : value,
          ]),
        );
        const read = await readGatewayWebhook(ctx, gateway, { headers, rawBody });
        if (read.outcome === 'unverified') {
          ctx.log.warn({ gatewayId: gateway.id, reason: read.message }, 'gateway webhook refused');
          return sendProblem(
            reply,
            problem(
              400,
              'webhook_signature_invalid',
              `The webhook's signature does not match: ${read.message}`,
            ),
          );
        }
        let applied = 0;
        // A disabled gateway's events are still the truth about money it moved.
        for (const event of read.events) if (await applyChargeEvent(ctx, gateway, event)) applied += 1;
        ctx.log.info(
          { gatewayId: gateway.id, events: read.events.length, applied, usable: isGatewayUsable(gateway) },
          'gateway webhook applied',
        );
        return reply.code(200).send({ received: read.events.length, applied });
      },
    );
  });
}
