import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { DateOut, Id, Nullable, PagingQuery, StringEnum, Text, WireDate } from '../../http/schemas.ts';
import { WEBHOOK_URL_MAX_LENGTH } from './webhookUrlPolicy.ts';

export const ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export const PREVIOUS_SECRET_MAX_SECONDS = 7 * 24 * 60 * 60;
export const PREVIOUS_SECRET_DEFAULT_SECONDS = 24 * 60 * 60;

const Url = () =>
  Text(WEBHOOK_URL_MAX_LENGTH, {
    minLength: 1,
    description: 'Where events are POSTed: https (http only where the service allows it), no credentials',
  });
const Description = () => Nullable(Text(500));
const EnabledEvents = () =>
  Type.Array(Text(100, { minLength: 1 }), {
    minItems: 1,
    maxItems: 100,
    description:
      'Event types to receive: a type (`payment.reversed`), a prefix wildcard (`invoice.*`), or `*`',
  });

export const CreateWebhookEndpointBody = Type.Object({
  Url: Url(),
  Description: Type.Optional(Description()),
  EnabledEvents: EnabledEvents(),
  isActive: Type.Optional(Type.Boolean({ description: 'false creates the endpoint disabled; default true' })),
});
export type CreateWebhookEndpointBody = Static<typeof CreateWebhookEndpointBody>;

export const EditWebhookEndpointBody = Type.Object({
  Url: Type.Optional(Url()),
  Description: Type.Optional(Description()),
  EnabledEvents: Type.Optional(EnabledEvents()),
  Status: Type.Optional(
    StringEnum(ENDPOINT_STATUSES, {
      description: 'enabled again clears DisabledReason and the failure clock',
    }),
  ),
});
export type EditWebhookEndpointBody = Static<typeof EditWebhookEndpointBody>;

const endpointProperties = {
  webhookEndpointID: Type.Integer(),
  Url: Type.String(),
  Description: Nullable(Type.String()),
  EnabledEvents: Type.Array(Type.String()),
  Status: StringEnum(ENDPOINT_STATUSES),
  DisabledReason: Nullable(Type.String({ description: 'Why the service disabled the endpoint' })),
  CreatedDate: DateOut(),
  UpdatedDate: DateOut(),
};

export const WebhookEndpointOut = Type.Object(endpointProperties, { $id: 'WebhookEndpoint' });

const Secret = () =>
  Type.String({
    description: 'whsec_ and the base64 of 32 random bytes: the signing key. Shown only here; keep it safe.',
  });

export const CreatedWebhookEndpointOut = Type.Object(
  { ...endpointProperties, Secret: Secret() },
  { $id: 'CreatedWebhookEndpoint' },
);

export const WebhookEndpointIdParams = Type.Object({ webhookEndpointID: Id() });

export const RotateSecretBody = Type.Object({
  PreviousSecretExpiresIn: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: PREVIOUS_SECRET_MAX_SECONDS,
      description: `Seconds the old secret keeps signing beside the new one (default ${PREVIOUS_SECRET_DEFAULT_SECONDS}; 0 after a leak)`,
    }),
  ),
});
export type RotateSecretBody = Static<typeof RotateSecretBody>;

export const RotatedSecretOut = Type.Object({
  Secret: Secret(),
  PreviousSecretExpiresAt: Type.String({ format: 'date-time' }),
});

export const TestEventOut = Type.Object({ eventID: Type.String() });

export const ResendBody = Type.Object({ webhookEndpointID: Id() });
export const ResendOut = Type.Object({ webhookDeliveryID: Type.Integer() });

export const RecoverBody = Type.Object({
  Since: WireDate({ description: 'Failed deliveries created from this instant on are sent again' }),
  Until: Type.Optional(WireDate({ description: 'Up to this instant (exclusive); default now' })),
});
export type RecoverBody = Static<typeof RecoverBody>;
export const RecoverOut = Type.Object({ Requeued: Type.Integer() });

export const DeliveryListQuery = Type.Object({
  ...PagingQuery.properties,
  status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
  eventType: Type.Optional(
    Text(100, { minLength: 1, description: 'An event type, a prefix wildcard (`invoice.*`) or `*`' }),
  ),
  startDate: Type.Optional(WireDate({ description: 'Deliveries created from this instant on' })),
  endDate: Type.Optional(
    WireDate({ description: 'Deliveries created up to this instant (a bare date: to its end)' }),
  ),
});
export type DeliveryListQuery = Static<typeof DeliveryListQuery>;

export const AttemptOut = Type.Object({
  AttemptDate: Type.String({ format: 'date-time' }),
  StatusCode: Nullable(Type.Integer({ description: 'Null when no response came (timeout, refused)' })),
  DurationMs: Type.Integer(),
  ResponseExcerpt: Nullable(Type.String({ description: 'The first kilobyte of the response body' })),
  Error: Nullable(Type.String()),
});

export const DeliveryOut = Type.Object(
  {
    webhookDeliveryID: Type.Integer(),
    webhookEndpointID: Type.Integer(),
    eventID: Type.String(),
    EventType: Type.String(),
    Status: StringEnum(DELIVERY_STATUSES),
    Attempts: Type.Integer({ description: 'Attempts made so far (AttemptsMade lists them)' }),
    NextAttemptDate: DateOut(),
    LastStatusCode: Nullable(Type.Integer()),
    LastError: Nullable(Type.String()),
    CreatedDate: Type.String({ format: 'date-time' }),
    DeliveredDate: DateOut(),
    AttemptsMade: Type.Array(AttemptOut),
  },
  { $id: 'WebhookDelivery' },
);
