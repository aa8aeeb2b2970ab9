import { nowInstant, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { lastFour } from './bankAccounts.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { findSellerDetails } from '../auth/index.ts';
import { assertCustomerExists } from '../customers/index.ts';
import { emitEvent, emitInBatches, snapshotResource } from '../events/index.ts';
import type { ResourceRef } from '../events/index.ts';
import * as repo from './emandate.repository.ts';
import { emandateAsOf } from './emandate.ts';
import type { Beneficiary, Emandate, EmandateFlow, SigneeEdits } from './emandate.ts';
import { bounded, checkedEmandate } from './emandateInput.ts';
import { isEmailAddress } from '../../core/text.ts';
import type { EmandateInput } from './emandateInput.ts';
import { consentText, documentText, sha256Hex } from './mandateDocument.ts';
import { newTokenSeed, tokenDigest, tokenFromSeed } from './emandateToken.ts';

/** Spec part 2, eMandates: an unsigned eMandate token is valid for 24 hours. */
export const UNSIGNED_TOKEN_HOURS = 24;

export type { EmandateInput };

export const emandateRef = (id: number): ResourceRef => ({ type: 'emandate', id });

/** The creditor as the account's seller details name it; the account's name when it has no legal name. */
async function beneficiaryOf(ctx: ServiceContext): Promise<Beneficiary> {
  const seller = await findSellerDetails(ctx.db, ctx.account.id);
  return {
    name: seller?.legalName ?? ctx.account.name,
    contactNumber: seller?.phone ?? null,
    // NOTE: the account has no web page setting yet (docs/spec-decisions.md, "eMandates").
    webPage: null,
    email: seller?.email ?? null,
  };
}

const contractRefTaken = (ref: string) =>
  new ConflictError(
    'contract_ref_taken',
    `debit_ContractRef "${ref}" belongs to another eMandate of the account`,
  );

/** A mandate just made, with its token: the one answer that has it without being given it. */
export interface CreatedEmandate {
  token: string;
  mandate: Emandate;
}

/**
 * POST /v1/emandate (embedded) and POST /widget/emandate (redirect): checks every field, seals the account number
 * and issues the token, valid 24 hours while unsigned (spec part 2, eMandates), of which only the SHA-256 is
 * stored (emandateToken.ts). 409 when the contract reference is taken (docs/design/mandates.md, "Fields": unique).
 */
export async function createEmandate(
  ctx: ServiceContext,
  flow: EmandateFlow,
  input: EmandateInput,
): Promise<CreatedEmandate> {
  const { accountNumber, bankAccount, debiCheck, ...mandate } = checkedEmandate(ctx, input);
  if (mandate.customerId !== null) await assertCustomerExists(ctx, mandate.customerId);
  const now = nowInstant(ctx);
  const expiresAt = new Date(ctx.clock.now().getTime() + UNSIGNED_TOKEN_HOURS * 3_600_000).toISOString();
  const seed = newTokenSeed();
  const token = tokenFromSeed(ctx, seed);
  await withTransaction(ctx, async (tctx) => {
    if (await repo.findEmandateByContractRef(tctx.db, tctx.account.id, mandate.debit.contractRef)) {
      throw contractRefTaken(mandate.debit.contractRef);
    }
    let id: number;
    try {
      id = await repo.insertEmandate(tctx.db, {
        ...mandate,
        bankAccount: { ...bankAccount, lastFour: lastFour(accountNumber) },
        accountId: tctx.account.id,
        tokenSha256: tokenDigest(token),
        tokenSeed: seed,
        flow,
        status: 'pending_signature',
        accountNumberSealed: tctx.secrets.seal(accountNumber),
        // The identity number is sealed at rest like the account number; only its last three characters show.
        debiCheck: debiCheck?.terms ?? null,
        debiCheckIdSealed: debiCheck ? tctx.secrets.seal(debiCheck.idNumber) : null,
        expiresAt,
        createdAt: now,
        updatedAt: now,
      });
    } catch (error) {
      // Another request took the reference between the check and the insert: the unique index is the backstop.
      if (/unique|duplicate/i.test(String((error as Error).message)))
        throw contractRefTaken(mandate.debit.contractRef);
      throw error;
    }
    await emitEvent(tctx, 'emandate.created', emandateRef(id));
  });
  return { token, mandate: await getEmandate(ctx, token) };
}

/** GET /v1/emandate?Token=: another account's token, or an unknown one, is a 404. */
export async function getEmandate(ctx: ServiceContext, token: string): Promise<Emandate> {
  const record = await repo.findEmandateByTokenDigest(ctx.db, ctx.account.id, tokenDigest(token));
  // The token is a capability: the refusal's log line must not carry it.
  if (!record) throw new NotFoundError('eMandate', '[token]');
  return emandateAsOf(record, nowInstant(ctx), await beneficiaryOf(ctx));
}

/** Mandates by id, as events show them (src/readModels/); ids not found are left out. */
export async function emandatesByIds(ctx: ServiceContext, ids: number[]): Promise<Map<number, Emandate>> {
  const records = await repo.listEmandatesByIds(ctx.db, ctx.account.id, ids);
  if (records.length === 0) return new Map();
  const beneficiary = await beneficiaryOf(ctx);
  const now = nowInstant(ctx);
  return new Map(records.map((record) => [record.id, emandateAsOf(record, now, beneficiary)]));
}

/**
 * The mandate each of these payment methods is linked to, by payment method id (methods without one are left out):
 * what a batch's build checks its lines against (docs/design/mandates.md, "Checks at build time").
 */
export async function emandatesOfPaymentMethods(
  ctx: ServiceContext,
  paymentMethodIds: readonly number[],
): Promise<Map<number, Emandate>> {
  const records = await repo.listEmandatesLinkedTo(ctx.db, ctx.account.id, paymentMethodIds);
  if (records.length === 0) return new Map();
  const beneficiary = await beneficiaryOf(ctx);
  const now = nowInstant(ctx);
  return new Map(records.map((record) => [record.paymentMethodId!, emandateAsOf(record, now, beneficiary)]));
}

/**
 * The tokens of the mandates these payment methods are linked to, by payment method id, derived again from their
 * seeds (emandateToken.ts): what a bank account shows as its EMandateToken. A mandate made before tokens had seeds
 * (migration 0022) has none to show, and is left out.
 */
export async function emandateTokensOfPaymentMethods(
  ctx: ServiceContext,
  paymentMethodIds: readonly number[],
): Promise<Map<number, string>> {
  const records = await repo.listEmandatesLinkedTo(ctx.db, ctx.account.id, paymentMethodIds);
  return new Map(
    records
      .filter((record) => record.tokenSeed !== null)
      .map((record) => [record.paymentMethodId!, tokenFromSeed(ctx, record.tokenSeed!)]),
  );
}

/**
 * A customer's mandates, newest first, each with its token (derived again from its seed: emandateToken.ts), which
 * opens its signing page and its signed PDF: what the customer portal shows the customer's own contacts.
 */
export async function emandatesOfCustomer(
  ctx: ServiceContext,
  customerId: number,
): Promise<{ mandate: Emandate; token: string | null }[]> {
  const records = await repo.listEmandatesOfCustomer(ctx.db, ctx.account.id, customerId);
  if (records.length === 0) return [];
  const beneficiary = await beneficiaryOf(ctx);
  const now = nowInstant(ctx);
  return records.map((record) => ({
    mandate: emandateAsOf(record, now, beneficiary),
    token: record.tokenSeed === null ? null : tokenFromSeed(ctx, record.tokenSeed),
  }));
}

/** The account whose mandate a token names, for the hosted pages; undefined for an unknown token. */
export function findAccountIdOfToken(
  ctx: Pick<ServiceContext, 'db'>,
  token: string,
): Promise<number | undefined> {
  return repo.findAccountIdOfTokenDigest(ctx.db, tokenDigest(token));
}

/** What the signee sends from the signing page. */
export interface SigningInput {
  consent: boolean;
  typedName: string;
  clientAddress: string;
  userAgent: string;
  /** Only when the mandate is isCustomerEditable: the signee's basic information as they corrected it. */
  signee?: Partial<
    Record<'tel' | 'email' | 'address1' | 'address2' | 'city' | 'state' | 'postalCode', string>
  >;
}

const notPending = (mandate: Emandate) =>
  new ConflictError(
    mandate.status === 'expired' ? 'emandate_expired' : 'emandate_not_pending',
    mandate.status === 'expired'
      ? 'The eMandate was not signed within 24 hours of its creation and has expired'
      : `The eMandate is ${mandate.status}, not waiting for a signature`,
  );

const normalName = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

/**
 * The signee signs (docs/design/hosted-pages.md, "eMandate pages"): an explicit consent and their typed full name;
 * the evidence stored is the time, the client's address and user agent, the exact consent text and the SHA-256 of
 * it and of the whole document. A mandate that is not waiting for a signature (signed, expired) is a 409.
 */
export async function signEmandate(
  ctx: ServiceContext,
  token: string,
  input: SigningInput,
): Promise<Emandate> {
  await withTransaction(ctx, async (tctx) => {
    const current = await getEmandate(tctx, token);
    if (current.status !== 'pending_signature') throw notPending(current);
    const problems: FieldProblem[] = [];
    if (!input.consent) problems.push({ field: 'Consent', message: 'must be ticked to sign the mandate' });
    const fullName = `${current.signee.name} ${current.signee.lastName}`;
    if (normalName(input.typedName) !== normalName(fullName)) {
      problems.push({ field: 'TypedName', message: `must be the signee's full name, ${fullName}` });
    }
    const edits = current.isCustomerEditable ? signeeEdits(input.signee ?? {}, problems) : {};
    if (problems.length) throw new ValidationError(problems);
    const edited: Emandate = { ...current, signee: { ...current.signee, ...edits } };
    const consent = consentText(edited);
    const ref = emandateRef(current.id);
    const before = await snapshotResource(tctx, ref);
    const now = nowInstant(tctx);
    const signed = await repo.updateEmandateInStatus(
      tctx.db,
      tctx.account.id,
      current.id,
      'pending_signature',
      {
        signee: edits,
        status: 'signed',
        signing: {
          signedAt: now,
          typedName: input.typedName.trim(),
          clientAddress: input.clientAddress,
          userAgent: input.userAgent.slice(0, 500),
          consentText: consent,
          consentSha256: sha256Hex(consent),
          documentSha256: sha256Hex(documentText(edited, consent)),
        },
        updatedAt: now,
      },
    );
    if (!signed) throw notPending(current);
    await emitEvent(tctx, 'emandate.signed', ref, { before });
  });
  return getEmandate(ctx, token);
}

/** isCustomerEditable: the basic information a signee may correct (never their name, the bank or the terms). */
function signeeEdits(given: NonNullable<SigningInput['signee']>, problems: FieldProblem[]): SigneeEdits {
  const value = (text: string | undefined, max: number, field: string) =>
    text === undefined ? undefined : bounded(text, max, field, problems);
  const email = value(given.email, 254, 'Email');
  if (email && !isEmailAddress(email))
    problems.push({ field: 'Email', message: 'must be an e-mail address' });
  const changes = {
    tel: value(given.tel, 40, 'Tel'),
    email,
    address1: value(given.address1, 255, 'Address1'),
    address2: value(given.address2, 255, 'Address2'),
    city: value(given.city, 100, 'City'),
    state: value(given.state, 100, 'State'),
    postalCode: value(given.postalCode, 20, 'PostalCode'),
  };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as SigneeEdits;
}

/**
 * The signee declines (docs/design/mandates.md, "Lifecycle": rejected, terminal): the token signs nothing any more.
 * A mandate that is not waiting for a signature is a 409.
 */
export async function declineEmandate(ctx: ServiceContext, token: string): Promise<Emandate> {
  await withTransaction(ctx, async (tctx) => {
    const current = await getEmandate(tctx, token);
    if (current.status !== 'pending_signature') throw notPending(current);
    const ref = emandateRef(current.id);
    const before = await snapshotResource(tctx, ref);
    const now = nowInstant(tctx);
    const declined = await repo.updateEmandateInStatus(
      tctx.db,
      tctx.account.id,
      current.id,
      'pending_signature',
      { status: 'rejected', declinedAt: now, updatedAt: now },
    );
    if (!declined) throw notPending(current);
    await emitEvent(tctx, 'emandate.declined', ref, { before });
  });
  return getEmandate(ctx, token);
}

const EXPIRY_BATCH = 500;

/**
 * Time moves unsigned mandates past their 24 hours to expired, each announced once (`emandate.expired`); run with
 * the day's other time-driven events by the bill run. Reads already show them expired before this runs.
 */
export async function expireLapsedEmandates(ctx: ServiceContext): Promise<number> {
  const ids = await repo.listLapsedEmandateIds(ctx.db, ctx.account.id, nowInstant(ctx), EXPIRY_BATCH);
  return emitInBatches(ctx, ids, async (tctx, batch) => {
    const events = [];
    for (const id of batch) {
      const ref = emandateRef(id);
      const before = await snapshotResource(tctx, ref);
      const moved = await repo.updateEmandateInStatus(tctx.db, tctx.account.id, id, 'pending_signature', {
        status: 'expired',
        updatedAt: nowInstant(tctx),
      });
      // NOTE: reads show a lapsed mandate expired already (emandateAsOf), so the snapshot says so too; the event's
      // `previous` names the status the mandate was stored in.
      const was = { ...before, object: before.object && { ...before.object, Status: 'pending_signature' } };
      if (moved)
        events.push({ type: 'emandate.expired', ref, before: was, onceKey: `emandate.expired:${id}` });
    }
    return events;
  });
}
