import crypto from 'node:crypto';
import { addDays } from '../../core/calendar.ts';
import type { PlainDate } from '../../core/calendar.ts';
import type { FailureReason } from './failureReasons.ts';
import type {
  BankAccountToValidate,
  BankValidationResult,
  CardToVault,
  ChargeRequest,
  ChargeResult,
  DriverDeps,
  GatewayDriver,
  ChargeEvent,
  GatewayTarget,
  RefundRequest,
  RefundResult,
  VaultResult,
} from './gatewayContract.ts';
import { GatewayTimeoutError } from './gatewayContract.ts';
import type { Db } from '../../storage/database.ts';
import * as repo from './testGateway.repository.ts';
import { testGatewayBatches } from './testGatewayBatches.ts';
import { ownEntry } from '../../core/ownEntry.ts';

/**
 * The built-in test gateway: a simulated provider whose outcomes are chosen by magic card numbers (docs/gateways.md;
 * docs/design/collections.md, "Test gateway"; Stripe's numbers keep Stripe's meaning). Outcomes are never chosen by
 * amount: amounts come from the catalogue and proration, and would collide. Every magic number passes Luhn, so the
 * tests run the production validation path. Like a provider, it keeps its vault and its charges (by idempotency key)
 * on its own side, in tables of its own.
 */

/** What a card does: refused when vaulted, or on each charge declined, failed or unanswered. */
interface CardBehaviour {
  at: 'vault' | 'charge';
  outcome: 'declined' | 'error' | 'timeout';
  reason: FailureReason;
  rawCode: string;
}

const declinedAtVault = (reason: FailureReason, rawCode: string): CardBehaviour => ({
  at: 'vault',
  outcome: 'declined',
  reason,
  rawCode,
});
const onCharge = (
  outcome: CardBehaviour['outcome'],
  reason: FailureReason,
  rawCode: string,
): CardBehaviour => ({
  at: 'charge',
  outcome,
  reason,
  rawCode,
});

/** Cards by number; any other valid number is approved, so suites can make as many distinct cards as they need. */
export const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  '4000000000000002': declinedAtVault('card_declined', 'do_not_honor'),
  '4000000000000069': declinedAtVault('expired_card', 'expired_card'),
  '4000000000009987': declinedAtVault('lost_card', 'lost_card'),
  '4000000000009979': declinedAtVault('stolen_card', 'stolen_card'),
  '4000000000009995': onCharge('declined', 'insufficient_funds', 'insufficient_funds'),
  '4000000000000341': onCharge('declined', 'card_declined', 'generic_decline'),
  '4000000000000119': onCharge('error', 'processing_error', 'processing_error'),
  // Ours (no Stripe meaning): the charge is made but its answer never arrives.
  '4000000000000408': onCharge('timeout', 'gateway_timeout', 'timeout'),
  // Ours: a card stored while good, reported lost since: a hard decline at charge time.
  '4000000000000085': onCharge('declined', 'lost_card', 'lost_card'),
  '4000002500003155': onCharge('declined', 'authentication_required', 'authentication_required'),
  '4000002760003184': onCharge('declined', 'authentication_required', 'authentication_required'),
};

/** Ours, in Stripe's sense: charged, then disputed by the cardholder a week after the charge (a chargeback). */
export const DISPUTED_LATER = '4000000000000259';
const DISPUTE_AFTER_DAYS = 7;

/** The vault keeps a card's behaviour under its masked number (first six and last four digits), never the number. */
const maskedNumber = (number: string) => `${number.slice(0, 6)}…${number.slice(-4)}`;
const BEHAVIOUR_BY_MASK = new Map(Object.entries(TEST_CARDS).map(([number, b]) => [maskedNumber(number), b]));
const APPROVE = 'approve';

/**
 * SA account numbers by what the bank's account verification (AVS) answers (docs/design/collections.md,
 * "Bank-account validation"); any other account, and every ACH and SEPA account (those schemes check no more than
 * the number), is a full match.
 */
export const TEST_BANK_ACCOUNTS: Readonly<Record<string, BankValidationResult>> = {
  '9800000001': {
    outcome: 'declined',
    reason: 'invalid_account',
    rawCode: 'avs_no_account',
    detail: 'AVS: the account does not exist',
  },
  '9800000002': {
    outcome: 'declined',
    reason: 'account_closed',
    rawCode: 'avs_closed',
    detail: 'AVS: the account is closed',
  },
  '9800000003': {
    outcome: 'declined',
    reason: 'account_holder_mismatch',
    rawCode: 'avs_partial',
    detail: "AVS: partial match: the ID number matches, the holder's name does not",
  },
  '9800000004': {
    outcome: 'declined',
    reason: 'debits_not_allowed',
    rawCode: 'avs_no_debits',
    detail: 'AVS: the account does not accept debits',
  },
  '9800000005': { outcome: 'ok', detail: 'AVS: full match; the account was opened less than 90 days ago' },
  '9800000090': {
    outcome: 'declined',
    reason: 'invalid_account',
    rawCode: '090',
    detail: 'CDV: the account number fails the bank’s check digit',
  },
  '9700000001': {
    outcome: 'pending',
    detail: 'AVS: the service did not answer; the result is not known yet',
  },
};

export function testGatewayDriver(deps: DriverDeps): GatewayDriver {
  const { db } = deps;
  return {
    ...testGatewayBatches(db),
    validateBankAccount: async (_target, account) => validateTestBankAccount(account),
    vaultCard: (target, card, at) => vaultTestCard(db, target, card, at),
    charge: (target, request, at) => chargeTestCard(db, target, request, at),
    chargeEvents: (target, asOf) => disputesReportedBy(db, target, asOf),
    refund: (target, request, at) => refundTestCharge(db, target, request, at),
  };
}

function validateTestBankAccount(account: BankAccountToValidate): BankValidationResult {
  const known =
    account.method === 'debit_order' ? ownEntry(TEST_BANK_ACCOUNTS, account.accountNumber ?? '') : undefined;
  return known ?? { outcome: 'ok', detail: 'full match' };
}

async function vaultTestCard(
  db: Db,
  target: GatewayTarget,
  card: CardToVault,
  at: string,
): Promise<VaultResult> {
  const behaviour = ownEntry(TEST_CARDS, card.number);
  if (behaviour?.at === 'vault') {
    return { outcome: 'declined', reason: behaviour.reason, rawCode: behaviour.rawCode };
  }
  const token = `tok_test_${crypto.randomBytes(12).toString('hex')}`;
  const scenario = behaviour || card.number === DISPUTED_LATER ? maskedNumber(card.number) : APPROVE;
  await repo.insertVaultEntry(db, { token, gateway_id: target.id, scenario, created_at: at });
  return { outcome: 'ok', token };
}

async function chargeTestCard(
  db: Db,
  target: GatewayTarget,
  request: ChargeRequest,
  at: string,
): Promise<ChargeResult> {
  const earlier = await repo.findCharge(db, target.id, request.idempotencyKey);
  if (earlier) return resultOf(earlier);
  const entry = await repo.findVaultEntry(db, target.id, request.token);
  const behaviour = entry ? BEHAVIOUR_BY_MASK.get(entry.scenario) : undefined;
  const charge: repo.TestChargeRow = {
    gateway_id: target.id,
    idempotency_key: request.idempotencyKey,
    charge_id: `ch_test_${crypto.randomBytes(12).toString('hex')}`,
    token: request.token,
    amount_minor: request.amountMinor,
    currency_code: request.currencyCode,
    outcome: 'succeeded',
    reason: null,
    raw_code: null,
    created_at: at,
    refunds_charge_id: null,
  };
  if (!entry) {
    Object.assign(charge, { outcome: 'declined', reason: 'invalid_account', raw_code: 'no_such_token' });
  } else if (behaviour?.reason === 'authentication_required' && request.authenticated === true) {
    // The cardholder passed the challenge: the charge goes through as any approved card's.
  } else if (behaviour && behaviour.outcome !== 'timeout') {
    Object.assign(charge, {
      outcome: behaviour.outcome,
      reason: behaviour.reason,
      raw_code: behaviour.rawCode,
    });
  }
  // NOTE: an error made no charge, so the provider forgets it: the same key may be tried again.
  if (charge.outcome === 'error') return resultOf(charge);
  await repo.insertCharge(db, charge);
  // The charge is made, but its answer is lost on the way: only asking again with the key tells.
  if (behaviour?.outcome === 'timeout') throw new GatewayTimeoutError('charge');
  // Two calls with one key at once: the first stored is the answer to both.
  return resultOf((await repo.findCharge(db, target.id, request.idempotencyKey)) ?? charge);
}

async function disputesReportedBy(db: Db, target: GatewayTarget, asOf: PlainDate): Promise<ChargeEvent[]> {
  const disputed = await repo.chargesOfScenario(db, target.id, maskedNumber(DISPUTED_LATER));
  return disputed
    .map((charge) => ({
      chargeId: charge.charge_id,
      kind: 'dispute' as const,
      code: 'chargeback',
      reportedOn: addDays(charge.created_at.slice(0, 10), DISPUTE_AFTER_DAYS),
    }))
    .filter((event) => event.reportedOn <= asOf);
}

/** Refunds part or all of a succeeded charge, never more than is left of it. */
async function refundTestCharge(
  db: Db,
  target: GatewayTarget,
  request: RefundRequest,
  at: string,
): Promise<RefundResult> {
  const earlier = await repo.findCharge(db, target.id, request.idempotencyKey);
  if (earlier) return { outcome: 'succeeded', refundId: earlier.charge_id };
  const charge = await repo.findChargeById(db, target.id, request.chargeId);
  if (!charge || charge.outcome !== 'succeeded' || charge.currency_code !== request.currencyCode) {
    return { outcome: 'declined', reason: 'invalid_account', rawCode: 'no_such_charge' };
  }
  const left = charge.amount_minor - (await repo.refundedOf(db, target.id, request.chargeId));
  if (request.amountMinor <= 0 || request.amountMinor > left) {
    return { outcome: 'declined', reason: 'card_declined', rawCode: 'amount_too_large' };
  }
  await repo.insertCharge(db, {
    gateway_id: target.id,
    idempotency_key: request.idempotencyKey,
    charge_id: `re_test_${crypto.randomBytes(12).toString('hex')}`,
    token: charge.token,
    amount_minor: request.amountMinor,
    currency_code: request.currencyCode,
    outcome: 'refunded',
    reason: null,
    raw_code: null,
    created_at: at,
    refunds_charge_id: request.chargeId,
  });
  // A card whose answers are lost loses this one too: only asking again with the key tells.
  const entry = await repo.findVaultEntry(db, target.id, charge.token);
  if (entry && BEHAVIOUR_BY_MASK.get(entry.scenario)?.outcome === 'timeout') {
    throw new GatewayTimeoutError('refund');
  }
  const stored = await repo.findCharge(db, target.id, request.idempotencyKey);
  return { outcome: 'succeeded', refundId: stored!.charge_id };
}

function resultOf(charge: repo.TestChargeRow): ChargeResult {
  if (charge.outcome === 'succeeded') return { outcome: 'succeeded', chargeId: charge.charge_id };
  return {
    outcome: charge.outcome as 'declined' | 'error',
    reason: charge.reason as FailureReason,
    rawCode: charge.raw_code ?? '',
  };
}
