import type { BillingDeps } from './billRun.ts';
import { runBilling } from './billRun.ts';

export interface BillingWorker {
  /** Stops the schedule and waits for the run in progress. */
  stop(): Promise<void>;
}

/**
 * Runs the bill run every `intervalMs` inside the service, never two at once in one process. Several processes
 * may each run it against one PostgreSQL: their runs divide the due work between them (see billRun.ts).
 */
export function startBillingWorker(deps: BillingDeps, intervalMs: number): BillingWorker {
  let running: Promise<void> | undefined;
  let stopped = false;

  const round = (): void => {
    if (stopped || running) return;
    running = (async () => {
      try {
        const summary = await runBilling(deps);
        if (summary.invoices > 0 || summary.parked > 0 || summary.failures > 0) {
          deps.log.info({ ...summary }, 'bill run');
        }
      } catch (error) {
        deps.log.error({ err: error }, 'bill run failed');
      } finally {
        running = undefined;
      }
    })();
  };

  const timer = setInterval(round, intervalMs);
  timer.unref();
  round();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
