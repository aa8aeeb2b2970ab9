import crypto from 'node:crypto';

/**
 * Standard Webhooks signatures (docs/design/webhooks.md, "Signing"): `v1,` and the base64 HMAC-SHA256 of
 * `${id}.${timestamp}.${body}` under the secret's bytes, the base64 after `whsec_`. Several secrets in force (a
 * rotation's overlap) give several space-separated entries, so a receiver holding either secret verifies.
 */
export function signWebhook(
  secrets: readonly string[],
  message: { id: string; timestamp: number; body: string },
): string {
  const signed = `${message.id}.${message.timestamp}.${message.body}`;
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
      return `v1,${crypto.createHmac('sha256', key).update(signed).digest('base64')}`;
    })
    .join(' ');
}
