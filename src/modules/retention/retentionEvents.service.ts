import type { ServiceContext } from '../../context.ts';
import * as repo from './retention.repository.ts';
import type { RetentionRecord } from './retention.ts';

/** The retention events' records by id, for their events' objects (unknown ids left out). */
export async function recordsByIds(
  ctx: ServiceContext,
  ids: readonly number[],
): Promise<Map<number, RetentionRecord>> {
  return new Map((await repo.recordsByIds(ctx.db, ctx.account.id, ids)).map((r) => [r.id, r]));
}
