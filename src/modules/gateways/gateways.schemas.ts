import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id } from '../../http/schemas.ts';

/** Spec (public-service notes, Gateways): the fields of a gateway, and no others: settings are never returned. */
export const GatewayOut = Type.Object(
  {
    gatewayID: Type.Integer(),
    GatewayToken: Type.String({ format: 'uuid' }),
    GatewayName: Type.String({ description: 'The provider behind the gateway, e.g. TestGateway' }),
    FriendlyName: Type.String({ description: "The account's own name for it" }),
    GatewayType: Type.String({ description: 'test (the built-in simulator) or manual (reconciled by hand)' }),
    isActive: Type.Boolean(),
    isTestMode: Type.Boolean(),
    isAcceptCC: Type.Boolean(),
    isAcceptBankDD: Type.Boolean(),
    isEnabled: Type.Boolean(),
    isPrimary: Type.Boolean(),
    isManualRecon: Type.Boolean(),
  },
  { $id: 'Gateway' },
);
export type GatewayOut = Static<typeof GatewayOut>;

export const GatewayIdParams = Type.Object({ gatewayID: Id() });
