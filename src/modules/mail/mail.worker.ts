import type { DeliveryDeps } from './mail.service.ts';
import { deliverDueMail } from './mail.service.ts';

export interface MailWorker {
  /** Asks for a delivery round now (after a change queued mail), instead of at the next interval. */
  wake(): void;
  /** Stops polling and waits for the round in progress. */
  stop(): Promise<void>;
}

export function startMailWorker(deps: DeliveryDeps, intervalMs: number): MailWorker {
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const round = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = (async () => {
      try {
        do {
          again = false;
          await deliverDueMail(deps);
        } while (again && !stopped);
      } catch (error) {
        deps.log.error({ err: error }, 'mail worker round failed');
      } finally {
        running = undefined;
      }
    })();
  };

  const timer = setInterval(round, intervalMs);
  timer.unref();
  round();

  return {
    wake: round,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
