/**
 * A webhook endpoint as the events module answers it, made from its row by `webhookEndpointFromRow`
 * (webhookEndpoint.repository.ts). It carries no secret: signing reads the sealed secrets itself (SendingEndpoint).
 */
export interface WebhookEndpoint {
  id: number;
  url: string;
  description: string | null;
  /** Event types, `*` and `prefix.*` wildcards allowed. */
  enabledEvents: string[];
  status: WebhookEndpointStatus;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export type WebhookEndpointStatus = 'enabled' | 'disabled';
