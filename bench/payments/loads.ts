/** The payments benchmark's loads, the floor and the payments, each payment request recorded; their figures. */
import type autocannon from 'autocannon';
import { round } from '../common.ts';
import { httpFigures, warmUpAndMeasure } from '../harness.ts';
import type { LoadSpec, Measured, RunResult } from '../harness.ts';
import { PAYMENT_DATE, PAYMENT_MINOR, ROUTE_KEYS } from './settings.ts';
import type { Figures, RouteKey } from './settings.ts';

/** What was sent, and what came back, request by request (each payment carries a unique Ref). */
export interface Ledger {
  /** Ref → the customer it was sent for. */
  sent: Map<string, number>;
  /** Ref → HTTP status, for every response autocannon received. */
  answered: Map<string, number>;
  /** Ref → the payment as the 201 response showed it. */
  created: Map<string, { paymentId: number; customerId: number; allocatedMinor: number; status: string }>;
  /** A few non-2xx response bodies, to show what went wrong. */
  failureSamples: string[];
  /** Refs whose response disagreed with the request (wrong Ref or customer, unreadable body). */
  mismatches: string[];
}

export function newLedger(): Ledger {
  return { sent: new Map(), answered: new Map(), created: new Map(), failureSamples: [], mismatches: [] };
}

/** The phase under way, part of every Ref: `w` (warm-up) or `m` (measured). */
let phaseTag = 'm';

/** Tags the Refs of the payments sent from now on with `phase` (for a caller of warmUpAndMeasure's onPhase). */
export function tagPaymentPhase(phase: 'warm-up' | 'measured'): void {
  phaseTag = phase === 'warm-up' ? 'w' : 'm';
}

/**
 * Payments by round-robin over `customers` (or one customer), each with a fresh Ref `<load>-<phase>-<n>`; as fast
 * as the connections go, or `perSecond` in all.
 */
export function paymentLoad(
  label: string,
  base: string,
  authorization: string,
  customers: readonly number[],
  refPrefix: string,
  ledger: Ledger,
  perSecond?: number,
): LoadSpec {
  let sequence = 0;
  const request: autocannon.Request = {
    setupRequest: (req, context) => {
      const n = sequence++;
      const customerID = customers[n % customers.length]!;
      const ref = `${refPrefix}-${phaseTag}-${n}`;
      (context as { ref?: string }).ref = ref;
      ledger.sent.set(ref, customerID);
      return {
        ...req,
        body: JSON.stringify({
          customerID,
          Amount: PAYMENT_MINOR / 100,
          CurrencyCode: 'USD',
          Date: PAYMENT_DATE,
          Method: 'eft',
          AutoApply: true,
          Ref: ref,
        }),
      };
    },
    // With one request in flight per connection, the context holds the Ref of the request this answers.
    onResponse: (status, body, context) => {
      const ref = (context as { ref?: string }).ref ?? '?';
      ledger.answered.set(ref, status);
      if (status === 201) {
        try {
          const payment = JSON.parse(body) as {
            paymentID: number;
            customerID: number;
            Ref: string | null;
            Status: string;
            Allocations: { amountApplied: number }[];
          };
          if (payment.Ref !== ref || payment.customerID !== ledger.sent.get(ref)) ledger.mismatches.push(ref);
          ledger.created.set(ref, {
            paymentId: payment.paymentID,
            customerId: payment.customerID,
            allocatedMinor: payment.Allocations.reduce(
              (sum, a) => sum + Math.round(a.amountApplied * 100),
              0,
            ),
            status: payment.Status,
          });
        } catch {
          ledger.mismatches.push(ref);
        }
      } else if (ledger.failureSamples.length < 5) {
        ledger.failureSamples.push(`${status} ${body.slice(0, 300)}`);
      }
    },
  };
  return {
    label,
    options: {
      url: `${base}/v1/payments`,
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      requests: [request],
    },
    perSecond,
  };
}

function statusCounts(result: RunResult): Record<string, number> {
  return Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [code, stats.count ?? 0]),
  );
}

export async function measure(
  specs: Record<RouteKey, LoadSpec>,
  serverPid: number | undefined,
): Promise<Record<RouteKey, Figures>> {
  const raw = new Map<RouteKey, Measured>();
  for (const key of ROUTE_KEYS) {
    const measured = await warmUpAndMeasure(specs[key], {
      tolerateFailures: true,
      serverPid,
      onPhase: tagPaymentPhase,
    });
    raw.set(key, measured);
  }
  const floorRps = raw.get('floor')!.measured.result.requests.mean;
  const figures = {} as Record<RouteKey, Figures>;
  for (const key of ROUTE_KEYS) {
    const { warmup, measured, cpuSeconds } = raw.get(key)!;
    const { result } = measured;
    figures[key] = {
      ...httpFigures(specs[key].label, measured, floorRps, {
        statusCodes: statusCounts(result),
        warmupStatusCodes: warmup ? statusCounts(warmup.result) : {},
        warmupNon2xx: warmup?.result.non2xx ?? 0,
        warmupErrors: (warmup?.result.errors ?? 0) + (warmup?.result.timeouts ?? 0),
      }),
      serverCpuMsPerRequest:
        cpuSeconds !== undefined && result.requests.total > 0
          ? round((cpuSeconds * 1000) / result.requests.total, 3)
          : null,
    };
  }
  return figures;
}
