import type { Db } from '../../storage/database.ts';
import {
  captureSessionChangesToRow,
  captureSessionFromRow,
  newCaptureSessionToRow,
} from './captureSession.mapper.ts';
import type {
  CaptureSessionChanges,
  CaptureSessionKey,
  CaptureSessionPurpose,
  CaptureSessionRecord,
  ClaimedCaptureSession,
  NewCaptureSession,
} from './captureSession.ts';

export async function insertCaptureSession(db: Db, session: NewCaptureSession): Promise<number> {
  const { id } = await db
    .insertInto('capture_sessions')
    .values(newCaptureSessionToRow(session))
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function findCaptureSessionByToken(
  db: Db,
  accountId: number,
  sessionToken: string,
): Promise<CaptureSessionRecord | undefined> {
  const row = await db
    .selectFrom('capture_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('session_token', '=', sessionToken)
    .executeTakeFirst();
  return row && captureSessionFromRow(row);
}

/**
 * The session whose HashToken has this SHA-256, of whichever account. NOTE: the one read not scoped by account:
 * the frame's URL carries nothing else, as an API key carries its account (docs/design/hosted-pages.md,
 * "Capture widget"); the caller acts for the account it finds.
 */
export async function findCaptureSessionByHashDigest(
  db: Db,
  digest: string,
): Promise<CaptureSessionRecord | undefined> {
  const row = await db
    .selectFrom('capture_sessions')
    .selectAll()
    .where('hash_token_sha256', '=', digest)
    .executeTakeFirst();
  return row && captureSessionFromRow(row);
}

export async function findCaptureSessions(
  db: Db,
  accountId: number,
  ids: readonly number[],
): Promise<CaptureSessionRecord[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('capture_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('id', 'in', ids)
    .orderBy('id')
    .execute();
  return rows.map(captureSessionFromRow);
}

/** The newest open session of the account made for `purpose` that is open past `openAfter`; undefined if none. */
export async function findOpenCaptureSessionFor(
  db: Db,
  accountId: number,
  purpose: CaptureSessionPurpose & { extRef: string },
  openAfter: string,
): Promise<CaptureSessionRecord | undefined> {
  const row = await db
    .selectFrom('capture_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('ext_ref', '=', purpose.extRef)
    .where('state', '=', 'open')
    .where('expires_at', '>', openAfter)
    .where('currency_code', '=', purpose.currencyCode)
    .where('vaulting_type', '=', purpose.vaultingType)
    .where('sale_type', '=', purpose.saleType)
    .where('vault_only_on_success', '=', purpose.vaultOnlyOnSuccess)
    .where('up_to_owed', '=', purpose.upToOwed)
    .where('gateway_id', '=', purpose.gatewayId)
    .where('auth_domain', '=', purpose.authDomain)
    .where((eb) =>
      purpose.amountMinor === null
        ? eb('amount_minor', 'is', null)
        : eb('amount_minor', '=', purpose.amountMinor),
    )
    .where((eb) =>
      purpose.description === null
        ? eb('description', 'is', null)
        : eb('description', '=', purpose.description),
    )
    .where((eb) =>
      purpose.invoiceId === null ? eb('invoice_id', 'is', null) : eb('invoice_id', '=', purpose.invoiceId),
    )
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && captureSessionFromRow(row);
}

/** Takes the session's row lock for the rest of the transaction and answers the row as it now is. */
export async function lockCaptureSession(
  db: Db,
  accountId: number,
  key: CaptureSessionKey,
): Promise<CaptureSessionRecord | undefined> {
  const row = await db
    .updateTable('capture_sessions')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('account_id', '=', accountId)
    .where((eb) =>
      'sessionToken' in key ? eb('session_token', '=', key.sessionToken) : eb('id', '=', key.sessionId),
    )
    .returningAll()
    .executeTakeFirst();
  return row && captureSessionFromRow(row);
}

/**
 * The invoices among `invoiceIds` a sale of another session than `exceptId` is paying now: claimed by a submit whose
 * claim still runs (wall time `wallNow`), waiting in a provider's popup (its sale started there, the session not
 * expired by `now`, business time), or charged and not completed yet (docs/portal.md, "Paying and payment methods").
 */
export async function listInvoicesWithSalesInFlight(
  db: Db,
  accountId: number,
  invoiceIds: readonly number[],
  times: { wallNow: string; now: string },
  exceptId: number | null,
): Promise<number[]> {
  const { wallNow, now } = times;
  if (invoiceIds.length === 0) return [];
  let query = db
    .selectFrom('capture_sessions')
    .select('invoice_id')
    .distinct()
    .where('account_id', '=', accountId)
    .where('invoice_id', 'in', invoiceIds)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'capturing'), eb('claimed_until', '>', wallNow)]),
        eb.and([
          eb('state', '=', 'open'),
          eb('provider_setup_sealed', 'is not', null),
          eb('amount_minor', 'is not', null),
          eb('expires_at', '>', now),
        ]),
        eb.and([eb('state', '=', 'captured'), eb('charge_id', 'is not', null)]),
      ]),
    );
  if (exceptId !== null) query = query.where('id', '!=', exceptId);
  const rows = await query.execute();
  return rows.flatMap((row) => (row.invoice_id === null ? [] : [row.invoice_id]));
}

/**
 * Claims an open session for one submit (state capturing until `claimedUntil`, under the claim's random id), or
 * one whose claim ran out (a crash, or a submit still waiting on its gateway: the takeover is counted), or one whose
 * challenge the shopper left for another card; answers the row as claimed, or undefined when another submit holds
 * it. One statement, so two submits at once cannot both get it.
 */
export async function claimCaptureSession(
  db: Db,
  accountId: number,
  id: number,
  claim: { claimId: string; wallNow: string; claimedUntil: string; now: string },
): Promise<ClaimedCaptureSession | undefined> {
  const row = await db
    .updateTable('capture_sessions')
    .set((eb) => ({
      state: 'capturing',
      claimed_until: claim.claimedUntil,
      claim_id: claim.claimId,
      // NOTE: SET reads the row as it was before the update, on both dialects: `state` is the state claimed.
      claim_takeovers: eb(
        'claim_takeovers',
        '+',
        eb.case().when('state', '=', 'capturing').then(eb.lit(1)).else(eb.lit(0)).end(),
      ),
      updated_at: claim.now,
    }))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where((eb) =>
      eb.or([
        eb('state', '=', 'open'),
        eb('state', '=', 'challenging'),
        eb.and([eb('state', '=', 'capturing'), eb('claimed_until', '<', claim.wallNow)]),
      ]),
    )
    .returningAll()
    .executeTakeFirst();
  return row && { ...captureSessionFromRow(row), claimId: claim.claimId };
}

/**
 * Claims a session waiting on the challenge `challengeId` for its answer, as claimCaptureSession claims a submit:
 * undefined when no such challenge is pending (answered already, replaced by another card, or never made).
 */
export async function claimCaptureChallenge(
  db: Db,
  accountId: number,
  id: number,
  challengeId: string,
  claim: { claimId: string; claimedUntil: string; now: string },
): Promise<ClaimedCaptureSession | undefined> {
  const row = await db
    .updateTable('capture_sessions')
    .set({
      state: 'capturing',
      claimed_until: claim.claimedUntil,
      claim_id: claim.claimId,
      updated_at: claim.now,
    })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('state', '=', 'challenging')
    .where('challenge_id', '=', challengeId)
    .returningAll()
    .executeTakeFirst();
  return row && { ...captureSessionFromRow(row), claimId: claim.claimId };
}

/**
 * Ends or releases the claim `claimId` with `changes`, and clears it, only while that claim still holds the
 * session: false, with nothing written, when another submit took the claim over meanwhile
 * (docs/design/hosted-pages.md, "One submit at a time").
 */
export async function endCaptureClaim(
  db: Db,
  accountId: number,
  id: number,
  claimId: string,
  changes: Omit<CaptureSessionChanges, 'claimId' | 'claimTakeovers'>,
): Promise<boolean> {
  const result = await db
    .updateTable('capture_sessions')
    .set({ ...captureSessionChangesToRow(changes), claimed_until: null, claim_id: null })
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .where('claim_id', '=', claimId)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

export async function updateCaptureSession(
  db: Db,
  accountId: number,
  id: number,
  changes: CaptureSessionChanges,
): Promise<void> {
  await db
    .updateTable('capture_sessions')
    .set(captureSessionChangesToRow(changes))
    .where('account_id', '=', accountId)
    .where('id', '=', id)
    .execute();
}

/** The failures of an address since `since`: how many, and the oldest (when the count next drops). */
export async function addressFailuresSince(
  db: Db,
  clientAddress: string,
  since: string,
): Promise<{ count: number; oldest: string | null }> {
  const row = await db
    .selectFrom('capture_address_failures')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('failed_at').as('oldest')])
    .where('client_address', '=', clientAddress)
    .where('failed_at', '>', since)
    .executeTakeFirstOrThrow();
  const oldest = row.oldest as unknown;
  return {
    count: Number(row.count),
    oldest: oldest === null ? null : oldest instanceof Date ? oldest.toISOString() : String(oldest),
  };
}

/**
 * Counts one failure of an address, and drops every address's failures from before `prunedBefore` (past the window
 * they count for nothing), so the table holds at most a window's failures.
 */
export async function insertAddressFailure(
  db: Db,
  failure: { clientAddress: string; failedAt: string; prunedBefore: string },
): Promise<void> {
  await db.deleteFrom('capture_address_failures').where('failed_at', '<=', failure.prunedBefore).execute();
  await db
    .insertInto('capture_address_failures')
    .values({ client_address: failure.clientAddress, failed_at: failure.failedAt })
    .execute();
}

/** The sessions of `invoiceId` with these ExtRefs that charged and were not completed yet, oldest first. */
export async function listChargedSessions(
  db: Db,
  accountId: number,
  invoiceId: number,
  extRefs: readonly string[],
): Promise<CaptureSessionRecord[]> {
  const rows = await db
    .selectFrom('capture_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('invoice_id', '=', invoiceId)
    .where('ext_ref', 'in', [...extRefs])
    .where('state', '=', 'captured')
    .where('charge_id', 'is not', null)
    .orderBy('id')
    .execute();
  return rows.map(captureSessionFromRow);
}

/** The gateway and the provider's charge of the session that recorded payment `paymentId`, if a session did. */
export async function findChargeOfPayment(
  db: Db,
  accountId: number,
  paymentId: number,
): Promise<{ gatewayId: number; chargeId: string } | undefined> {
  const row = await db
    .selectFrom('capture_sessions')
    .select(['gateway_id', 'charge_id'])
    .where('account_id', '=', accountId)
    .where('payment_id', '=', paymentId)
    .where('charge_id', 'is not', null)
    .executeTakeFirst();
  return row?.charge_id ? { gatewayId: row.gateway_id, chargeId: row.charge_id } : undefined;
}

/** The session that started the provider's setup or sale `providerRef` at the gateway, if one did. */
export async function findSessionByProviderRef(
  db: Db,
  accountId: number,
  gatewayId: number,
  providerRef: string,
): Promise<CaptureSessionRecord | undefined> {
  const row = await db
    .selectFrom('capture_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('gateway_id', '=', gatewayId)
    .where('provider_ref', '=', providerRef)
    .executeTakeFirst();
  return row && captureSessionFromRow(row);
}

/**
 * Sessions a browser left with the provider (docs/hosted-pages.md, "When the browser never comes back"): a setup or
 * sale started before `startedBefore` (wall time) and not answered yet, or captured and not completed for a page of
 * the service's own (the pay page's, the portal's, by their ExtRef prefixes), oldest first; none that expired
 * before `expiredAfter` (business time), which are asked no more.
 */
export async function listSessionsLeftWithProvider(
  db: Db,
  accountId: number,
  startedBefore: string,
  expiredAfter: string,
  ownExtRefPrefixes: readonly string[],
  limit: number,
): Promise<CaptureSessionRecord[]> {
  const rows = await db
    .selectFrom('capture_sessions')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('provider_started_at', '<', startedBefore)
    .where('expires_at', '>', expiredAfter)
    .where((eb) =>
      eb.or([
        eb.and([eb('state', '=', 'open'), eb('provider_setup_sealed', 'is not', null)]),
        eb.and([
          eb('state', '=', 'captured'),
          eb.or(ownExtRefPrefixes.map((prefix) => eb('ext_ref', 'like', `${prefix}%`))),
        ]),
      ]),
    )
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(captureSessionFromRow);
}
