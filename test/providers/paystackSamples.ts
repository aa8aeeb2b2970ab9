import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** What Paystack publishes that the simulator (paystackSimulator.ts) answers with: its samples, test cards, signing. */

// Paystack's answers are read loosely: the checks against its document are the type checks here.
export type Json = Record<string, any>;

const FIXTURES = path.resolve(import.meta.dirname, '../fixtures/providers/paystack');
export const PAYSTACK_DOCUMENT = path.join(FIXTURES, 'openapi.yaml');

/**
 * Paystack's documented test cards (docs/gateways/paystack.md, "Test mode and test cards"): `success` is paid with
 * no further step; `declined` is refused by the issuer; `pinAndOtp` asks for the PIN then an OTP (123456), and its
 * reusable authorization is paused on a renewal until the customer authorises it on Paystack's page.
 */
export const PAYSTACK_TEST_CARDS = {
  success: { number: '4084084084084081', cvv: '408', pin: '0000' },
  declined: { number: '4084080000005408', cvv: '001', pin: '0000' },
  pinAndOtp: { number: '5060666666666666666', cvv: '123', pin: '1234' },
} as const;
export const PAYSTACK_TEST_OTP = '123456';

export const sample = (area: string): Json =>
  JSON.parse(fs.readFileSync(path.join(FIXTURES, 'responses', area, 'response.json'), 'utf8')) as Json;

export const brandOf = (number: string) =>
  number.startsWith('4')
    ? 'visa'
    : number.startsWith('506')
      ? 'verve'
      : number.startsWith('5')
        ? 'mastercard'
        : 'card';

/** A webhook as Paystack sends it: the JSON body and its x-paystack-signature (hex HMAC-SHA512, secret key). */
export function signedWebhook(secretKey: string, event: string, data: Json) {
  const rawBody = Buffer.from(JSON.stringify({ event, data }), 'utf8');
  const signature = crypto.createHmac('sha512', secretKey).update(rawBody).digest('hex');
  return { headers: { 'content-type': 'application/json', 'x-paystack-signature': signature }, rawBody };
}
