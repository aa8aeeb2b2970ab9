/**
 * Batches calls into one write: the items that arrive while a write runs (or in the same turn of the event loop as
 * the first) are written together by the next one, so that a busy worker pays one transaction per batch instead of
 * one per item, and an idle one waits no longer than a turn. `write` answers each item in order; when it throws,
 * every item of its batch gets the error.
 */
export function groupCommit<T, R>(write: (items: T[]) => Promise<R[]>): (item: T) => Promise<R> {
  let waiting: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  let writing = false;

  const drain = async () => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        const results = await write(batch.map((entry) => entry.item));
        batch.forEach((entry, i) => entry.resolve(results[i]!));
      } catch (error) {
        for (const entry of batch) entry.reject(error);
      }
    }
    writing = false;
  };

  return (item) =>
    new Promise<R>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      if (writing) return;
      writing = true;
      setImmediate(() => void drain());
    });
}
