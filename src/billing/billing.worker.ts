import type { BillingDeps } from './billRun.ts';
import { runBilling } from './billRun.ts';

export interface BillingWorker {
  /**
   * Stops the schedule and the run in progress, which ends after its transaction in progress (BillingDeps.signal);
   * settles once it has.
   */
  stop(): Promise<void>;
}

/**
 * Runs the bill run every `intervalMs` inside the service, never two at once in one process. Several processes
 * may each run it against one PostgreSQL: their runs divide the due work between them (see billRun.ts).
 */
export function startBillingWorker(deps: BillingDeps, intervalMs: number): BillingWorker {
  let running: Promise<void> | undefined;
  const stopping = new AbortController();

  const round = (): void => {
    if (stopping.signal.aborted || running) return;
    running = (async () => {
      try {
        const summary = await runBilling({ ...deps, signal: stopping.signal });
        if (summary.invoices > 0 || summary.parked > 0 || summary.failures > 0) {
          deps.log.info({ ...summary }, stopping.signal.aborted ? 'bill run stopped' : 'bill run');
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
      stopping.abort();
      clearInterval(timer);
      await running;
    },
  };
}
