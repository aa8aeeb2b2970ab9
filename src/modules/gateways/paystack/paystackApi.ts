import { GatewayTimeoutError } from '../gatewayContract.ts';

/**
 * Paystack's HTTP API as the driver calls it: JSON bodies, `Authorization: Bearer <secret key>`, every answer an
 * envelope `{status, message, data}`. The HTTP client is injected (`fetch` in production, the simulator in tests).
 * A call that gets no answer within the timeout, or fails before one arrives, throws GatewayTimeoutError: Paystack
 * may have acted on it, so the caller asks again with the same reference, never guesses
 * (docs/gateways.md, "Adding a real provider").
 */

export const PAYSTACK_API = 'https://api.paystack.co';

export interface PaystackAnswer {
  httpStatus: number;
  status: boolean;
  message: string;
  /** `code` of Paystack's error answers (`duplicate_reference`), when it gives one. */
  code: string | undefined;
  data: unknown;
}

export interface PaystackClient {
  call(operation: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<PaystackAnswer>;
}

export function paystackClient(fetchFn: typeof fetch, secretKey: string, timeoutMs: number): PaystackClient {
  return {
    async call(operation, method, path, body) {
      let response: Response;
      let text: string;
      try {
        response = await fetchFn(`${PAYSTACK_API}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${secretKey}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        text = await response.text();
      } catch {
        throw new GatewayTimeoutError(operation);
      }
      return answerOf(response.status, text);
    },
  };
}

function answerOf(httpStatus: number, text: string): PaystackAnswer {
  let parsed: { status?: unknown; message?: unknown; code?: unknown; data?: unknown } = {};
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object') parsed = value as typeof parsed;
  } catch {
    // A body that is not JSON (a proxy's error page) is an answer without Paystack's word: status false.
  }
  return {
    httpStatus,
    status: parsed.status === true,
    message: typeof parsed.message === 'string' ? parsed.message : `HTTP ${httpStatus}`,
    code: typeof parsed.code === 'string' ? parsed.code : undefined,
    data: parsed.data,
  };
}

/** Paystack refused the key (401): every operation answers it in words rather than as a decline. */
export const isUnauthorized = (answer: PaystackAnswer) => answer.httpStatus === 401;

/** Paystack's answer to a reference it already has (its TransactionInitializeBadRequestModel example). */
export const isDuplicateReference = (answer: PaystackAnswer) =>
  !answer.status && (answer.code === 'duplicate_reference' || /duplicate.*reference/i.test(answer.message));

/** Paystack knows no such transaction: the document's 404, or a 400 saying so. */
export const isNotFound = (answer: PaystackAnswer) =>
  !answer.status && (answer.httpStatus === 404 || /not found/i.test(answer.message));

/** A server error: Paystack may or may not have acted. */
export const isServerError = (answer: PaystackAnswer) => answer.httpStatus >= 500;
