/** Gives a slot back; called once, when the check that held it is over. */
export type ReleaseSlot = () => void;

/**
 * The process's password-check slots, shared fairly between accounts (docs/portal.md, "Sign-in, sessions and
 * passwords"): at most `total` checks run at once, and at most `perAccount` of them for one account, so that one
 * account's contacts (a loop of e-mail changes, a burst of sign-ins) can never hold them all. An account's checks
 * beyond its share wait in the account's own queue, first come first served, for one of its own slots to free;
 * beyond `queuePerAccount` waiting, or when the process is full with other accounts' checks, the answer is 'busy'.
 */
export class VerificationSlots {
  private running = 0;
  private readonly byAccount = new Map<number, number>();
  private readonly queues = new Map<number, (() => void)[]>();

  constructor(
    readonly total: number,
    readonly perAccount: number,
    readonly queuePerAccount: number,
  ) {}

  acquire(accountId: number): Promise<ReleaseSlot | 'busy'> {
    const held = this.byAccount.get(accountId) ?? 0;
    if (held < this.perAccount && this.running < this.total) return Promise.resolve(this.take(accountId));
    if (held < this.perAccount) return Promise.resolve('busy');
    const queue = this.queues.get(accountId) ?? [];
    if (queue.length >= this.queuePerAccount) return Promise.resolve('busy');
    this.queues.set(accountId, queue);
    return new Promise((resolve) => queue.push(() => resolve(this.take(accountId))));
  }

  /** Checks running now, all accounts together and for one account; checks waiting for the account. */
  usage(accountId: number): { running: number; ofAccount: number; waiting: number } {
    return {
      running: this.running,
      ofAccount: this.byAccount.get(accountId) ?? 0,
      waiting: this.queues.get(accountId)?.length ?? 0,
    };
  }

  private take(accountId: number): ReleaseSlot {
    this.running++;
    this.byAccount.set(accountId, (this.byAccount.get(accountId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running--;
      const held = this.byAccount.get(accountId)! - 1;
      if (held === 0) this.byAccount.delete(accountId);
      else this.byAccount.set(accountId, held);
      // A check of this account waits only for one of the account's own slots, and one just freed: it goes now
      // (the process has room, since this one left it).
      const queue = this.queues.get(accountId);
      const next = queue?.shift();
      if (queue && queue.length === 0) this.queues.delete(accountId);
      next?.();
    };
  }
}
