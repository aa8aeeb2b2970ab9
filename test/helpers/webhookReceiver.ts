import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/** A request the receiver got, as it arrived. */
export interface ReceivedWebhook {
  id: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Wall-clock ms when it arrived. */
  at: number;
}

/** How the receiver answers one request. */
export interface Answer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
  /** Waits this long before answering. */
  delayMs?: number;
  /** Never answers (until the receiver closes): a request held open. */
  hold?: boolean;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  /** Decides each answer: by default 200 to everything. Return undefined for the default. */
  answer(script: (request: ReceivedWebhook, countForId: number) => Answer | undefined): void;
  /** Requests per webhook-id. */
  countById(): Map<string, number>;
  /** Requests being held open right now. */
  held(): number;
  /** Answers every held request with 200 and stops holding. */
  releaseHeld(): void;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that records every webhook it receives (headers and raw body) and answers as
 * a test's script says: status codes, delays, Retry-After, or no answer at all.
 */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const perId = new Map<string, number>();
  const holding = new Set<http.ServerResponse>();
  let script: (request: ReceivedWebhook, countForId: number) => Answer | undefined = () => undefined;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id'] ?? '');
      const request: ReceivedWebhook = {
        id,
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      const count = (perId.get(id) ?? 0) + 1;
      perId.set(id, count);
      const answer = script(request, count) ?? { status: 200 };
      if (answer.hold) {
        holding.add(res);
        res.on('close', () => holding.delete(res));
        return;
      }
      const send = () => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body ?? '');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer(next) {
      script = next;
    },
    countById: () => new Map(perId),
    held: () => holding.size,
    releaseHeld() {
      for (const res of holding) {
        res.writeHead(200);
        res.end();
      }
      holding.clear();
    },
    async close() {
      for (const res of holding) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Verifies a received webhook with the Standard Webhooks reference library; throws when it does not verify. */
export function verifyWebhook(secret: string, request: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  });
}
