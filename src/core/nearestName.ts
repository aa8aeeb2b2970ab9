/**
 * "Did you mean …?": the known name a client most likely meant when it wrote one we do not know (an unknown body
 * field, a webhook event type). One rule for every such answer.
 */

/**
 * Optimal string alignment distance (Levenshtein with adjacent transpositions, each one edit): `Emial` is one
 * edit from `Email`, as a typist sees it.
 */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/**
 * The known name nearest to `written`: the same name in another letter case, else the closest (compared in lower
 * case) within one edit per four letters (at least one, at most three), the first on a tie. None when nothing is
 * that close: a wrong suggestion is worse than none.
 */
export function nearestName(written: string, known: readonly string[]): string | undefined {
  const lower = written.trim().toLowerCase();
  const sameLetters = known.find((name) => name.toLowerCase() === lower);
  if (sameLetters) return sameLetters;
  const limit = Math.min(3, Math.max(1, Math.floor(lower.length / 4)));
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
