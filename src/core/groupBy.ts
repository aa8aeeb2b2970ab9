/** The items grouped by key, each group in the items' order. */
export function groupBy<T, K>(items: readonly T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

/**
 * The children of each parent, looked up by the parent's id, in the order read: for reads that load one level per
 * statement for a whole page (`where ... in (...)` over its ids) and hang each level under the one above.
 */
export function childrenByParent<C>(
  children: readonly C[],
  parentIdOf: (child: C) => number,
): (parentId: number) => C[] {
  const groups = groupBy(children, parentIdOf);
  return (parentId) => groups.get(parentId) ?? [];
}
