/** Gives a slot back; called once, when the check that held it is over. */
export type ReleaseSlot = () => void;

/**
 * A service's password-check slots (made by portalAuth.service.ts, passwordCheckSlots), shared round-robin between accounts (docs/portal.md, "Sign-in, sessions and
 * passwords"): at most `total` checks run at once. While there is room a check starts at once, whatever its account;
 * when the process is full it waits in its account's queue (first come first served, up to `queuePerAccount`, beyond
 * which the answer is 'busy'), and each slot freed goes to the next account in turn that has a check waiting, not to
 * the account that held it. So accounts under attack, however many, cannot keep another account's contacts out: a
 * check waits at most one turn of the accounts waiting before it. (A fixed share per account did not: with 2 of 5
 * each, three accounts held them all and every other was told 'busy'.)
 */
export class VerificationSlots {
  private running = 0;
  private readonly byAccount = new Map<number, number>();
  /** The accounts with checks waiting, in turn order: a Map keeps its keys in insertion order. */
  private readonly queues = new Map<number, (() => void)[]>();

  constructor(
    readonly total: number,
    readonly queuePerAccount: number,
  ) {}

  acquire(accountId: number): Promise<ReleaseSlot | 'busy'> {
    // A freed slot is handed on at once, so there is room only while nothing waits.
    if (this.running < this.total) return Promise.resolve(this.take(accountId));
    const queue = this.queues.get(accountId) ?? [];
    if (queue.length >= this.queuePerAccount) return Promise.resolve('busy');
    // An account not waiting yet takes its turn after those that are.
    if (queue.length === 0) this.queues.set(accountId, queue);
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
      this.handOn();
    };
  }

  /** The slot just freed goes to the first check of the account whose turn it is; that account goes to the back. */
  private handOn(): void {
    const turn = this.queues.entries().next();
    if (turn.done) return;
    const [accountId, queue] = turn.value;
    this.queues.delete(accountId);
    const next = queue.shift()!;
    if (queue.length > 0) this.queues.set(accountId, queue);
    next();
  }
}
