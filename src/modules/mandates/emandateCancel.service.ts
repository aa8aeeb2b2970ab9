import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { ConflictError } from '../../errors.ts';
import { emitEvents, snapshotResource } from '../events/index.ts';
import type { EventToEmit } from '../events/index.ts';
import type { Emandate } from './emandate.ts';
import * as repo from './emandate.repository.ts';
import { emandateRef, getEmandate } from './emandate.service.ts';

/**
 * Cancels a signed mandate (docs/spec-decisions.md, "Cancelling an eMandate"): `cancelled` for good, DateCancelled
 * set, `emandate.cancelled`; the bank account linked to it becomes invalid, and no batch builds a line under it
 * again (docs/design/mandates.md, "Checks at build time"). The signed PDF stays downloadable by the API
 * (GET /v1/emandate/download). Cancelling a cancelled mandate changes nothing; an unsigned, expired or declined one
 * is a 409 emandate_not_signed.
 */
export async function cancelEmandate(
  ctx: ServiceContext,
  token: string,
  /** The gateway took the cancel of the mandate's DebiCheck authentication (debiCheck.service.ts). */
  debiCheckCancelled = false,
): Promise<Emandate> {
  await withTransaction(ctx, async (tctx) => {
    const current = await getEmandate(tctx, token);
    if (current.status === 'cancelled') return;
    if (current.status !== 'signed') throw notSigned(current);
    const ref = emandateRef(current.id);
    const before = await snapshotResource(tctx, ref);
    const now = nowInstant(tctx);
    const cancelled = await repo.updateEmandateInStatus(tctx.db, tctx.account.id, current.id, 'signed', {
      status: 'cancelled',
      cancelledAt: now,
      ...(debiCheckCancelled ? { debiCheck: { status: 'cancelled' as const, answeredAt: now } } : {}),
      updatedAt: now,
    });
    if (!cancelled) throw notSigned(await getEmandate(tctx, token));
    const events: EventToEmit[] = [{ type: 'emandate.cancelled', ref, before }];
    if (current.paymentMethodId !== null) {
      events.push(...(await tctx.ports.mandates.cancelled(tctx, current.paymentMethodId)));
    }
    await emitEvents(tctx, events);
  });
  return getEmandate(ctx, token);
}

const notSigned = (mandate: Emandate) =>
  new ConflictError(
    'emandate_not_signed',
    `The eMandate is ${mandate.status}: only a signed mandate can be cancelled`,
  );
