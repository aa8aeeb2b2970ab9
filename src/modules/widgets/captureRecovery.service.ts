import { nowInstant } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { DomainError, NotFoundError } from '../../errors.ts';
import { getInvoice } from '../invoicing/index.ts';
import { finishProviderSetup } from './captureProvider.service.ts';
import { completeCaptureSession } from './captureSession.service.ts';
import { COMPLETE_GRACE_MS } from './captureSession.ts';
import type { CaptureSessionRecord } from './captureSession.ts';
import * as repo from './captureSession.repository.ts';
import { completePagePayment } from './payPage.service.ts';

/**
 * A charge made in a provider's hosted fields or popup is recorded even when the browser never comes back
 * (docs/hosted-pages.md, "When the browser never comes back"): the provider's webhook names the reference the
 * session started its setup or sale under, and the collection run asks the provider about every session left with it
 * past PROVIDER_SWEEP_AFTER_MS. Either way the setup is asked of the provider and recorded as the frame's own
 * complete records it (captureProvider.service.ts, under the session's claim: one of them records it), and a session
 * the service made for a page of its own (the pay page, the portal) is completed for its customer at once, as the
 * page would have: the card kept, the sale a payment of the invoice, the customer's receipt. The merchant's own
 * sessions are captured and announced (`capture_session.captured`, naming the session by its id, which complete
 * takes in place of the token the event leaves out), for the merchant's server to complete.
 */

/** How long after its start (wall time) the run asks the provider about a session no browser finished. */
export const PROVIDER_SWEEP_AFTER_MS = 10 * 60 * 1000;

/** The ExtRefs of the service's own pages' sessions (payPage.service.ts, the portal's portalCapture.ts). */
const PAY_PAGE = /^pay:invoice:(\d+):(?:confirm|card)$/;
const PORTAL = /^portal:customer:(\d+)$/;
const OWN_EXT_REF_PREFIXES = ['pay:invoice:', 'portal:customer:'];

/**
 * The session the provider's webhook names by its reference, asked of the provider and carried out; whether the
 * reference was a session's and something was recorded.
 */
export async function recoverSessionOfReference(
  ctx: ServiceContext,
  gatewayId: number,
  providerRef: string,
): Promise<boolean> {
  const row = await repo.findSessionByProviderRef(ctx.db, ctx.account.id, gatewayId, providerRef);
  return row !== undefined && recoverSession(ctx, row);
}

/** Every session left with a provider since before `startedBefore` (wall time): how many were recorded. */
export async function recoverCaptureSessions(ctx: ServiceContext, startedBefore: string): Promise<number> {
  let recovered = 0;
  // A day past its Expires, as long as the merchant may complete it, a popup left unpaid is asked no more.
  const expiredAfter = new Date(Date.parse(nowInstant(ctx)) - COMPLETE_GRACE_MS).toISOString();
  const left = await repo.listSessionsLeftWithProvider(
    ctx.db,
    ctx.account.id,
    startedBefore,
    expiredAfter,
    OWN_EXT_REF_PREFIXES,
    100,
  );
  for (const row of left) {
    try {
      if (await recoverSession(ctx, row)) recovered += 1;
    } catch (error) {
      // The next run asks again; one session must not hold back the others.
      ctx.log.error({ err: error, captureSessionId: row.id }, 'recovering a capture session failed');
    }
  }
  return recovered;
}

/**
 * Asks the provider about a setup still open and records it when done (a setup not finished is left as it is, a
 * decline counted as the frame's would be), then completes a captured session of the service's own pages.
 */
async function recoverSession(ctx: ServiceContext, row: CaptureSessionRecord): Promise<boolean> {
  let captured = row.state === 'captured';
  if (row.state === 'open' && row.providerSetupSealed !== null) {
    captured = await finishProviderSetup(ctx, row).then(
      () => true,
      (error: unknown) => {
        // Not finished, declined, or being recorded by the browser right now: nothing more to do here.
        if (error instanceof DomainError) return false;
        throw error;
      },
    );
  }
  if (!captured) return false;
  await completeOwnSession(ctx, row);
  return true;
}

/**
 * A captured session of the service's own pages completed for the customer it was made for (pay page: the
 * invoice's; portal: the signed-in customer's); the merchant's sessions are left for the merchant. Idempotent, so
 * the page coming back afterwards completes nothing twice.
 */
export async function completeOwnSession(ctx: ServiceContext, row: CaptureSessionRecord): Promise<void> {
  const page = PAY_PAGE.exec(row.extRef ?? '');
  if (page) {
    const invoice = await getInvoice(ctx, Number(page[1])).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    });
    if (invoice) await completePagePayment(ctx, invoice, row);
    return;
  }
  const portal = PORTAL.exec(row.extRef ?? '');
  if (!portal) return;
  try {
    await completeCaptureSession(ctx, { customerId: Number(portal[1]), sessionToken: row.sessionToken });
  } catch (error) {
    if (!(error instanceof DomainError) || error.code !== 'capture_session_not_captured') throw error;
  }
}
