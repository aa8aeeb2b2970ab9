import type { KyselyPlugin, QueryId, RootOperationNode } from 'kysely';
import { InsertQueryNode, SelectQueryNode, TableNode } from 'kysely';

/**
 * Holds the answer of the first `count` statements (one unless given) that `matches`: each is run by the database
 * as usual, and then its caller waits until the test releases them all; `reached` once all have run (a test whose
 * statements are fewer waits for it until its timeout). For staging a race at an exact point (a gateway's slow
 * answer) without sleeps: the test awaits `reached`, does what the other side does meanwhile, then calls `release`.
 * Give the plugin to an instance of its own (startAnotherInstance): on SQLite the held statement keeps that
 * instance's one connection.
 */
export interface HeldStatement {
  plugin: KyselyPlugin;
  /** Resolves once the matching statement has run and its caller waits. */
  reached: Promise<void>;
  release(): void;
}

export function holdStatement(matches: (node: RootOperationNode) => boolean, count = 1): HeldStatement {
  const held = new Set<QueryId>();
  let taken = 0;
  let waiting = 0;
  let reachedNow!: () => void;
  let release!: () => void;
  const reached = new Promise<void>((resolve) => (reachedNow = resolve));
  const released = new Promise<void>((resolve) => (release = resolve));
  return {
    reached,
    release,
    plugin: {
      transformQuery({ node, queryId }) {
        if (taken < count && matches(node)) {
          taken++;
          held.add(queryId);
        }
        return node;
      },
      async transformResult({ result, queryId }) {
        if (held.delete(queryId)) {
          if (++waiting === count) reachedNow();
          await released;
        }
        return result;
      },
    },
  };
}

/** An INSERT into `table`. */
export const insertInto =
  (table: string) =>
  (node: RootOperationNode): boolean =>
    InsertQueryNode.is(node) && node.into?.table.identifier.name === table;

/** A SELECT reading `table`. */
export const selectFrom =
  (table: string) =>
  (node: RootOperationNode): boolean =>
    SelectQueryNode.is(node) &&
    (node.from?.froms ?? []).some((from) => TableNode.is(from) && from.table.identifier.name === table);
