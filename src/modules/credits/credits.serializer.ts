import type { Static } from '@sinclair/typebox';
import { minorToWireNumber } from '../../core/money.ts';
import type { CreditEntry } from './credit.repository.ts';
import { refundedOf } from './credit.ts';
import type { GrantView } from './grant.service.ts';
import type { TopUpMade } from './topUp.service.ts';
import type { WalletView } from './wallet.service.ts';
import type { EntryOut, GrantOut, TopUpOut, WalletOut } from './credits.schemas.ts';

const orNull = (minor: number | null, money: (minor: number) => number) =>
  minor === null ? null : money(minor);

export function toWalletDto(wallet: WalletView): Static<typeof WalletOut> {
  const money = (minor: number) => minorToWireNumber(minor, wallet.currencyCode);
  return {
    walletID: wallet.id,
    customerID: wallet.customerId,
    CurrencyCode: wallet.currencyCode,
    Name: wallet.name,
    Balance: money(wallet.balanceMinor),
    PaidBalance: money(wallet.paidBalanceMinor),
    GrantedBalance: money(wallet.grantedBalanceMinor),
    AutoTopUpThreshold: orNull(wallet.autoTopUpThresholdMinor, money),
    AutoTopUpAmount: orNull(wallet.autoTopUpAmountMinor, money),
    AutoTopUpProblem: wallet.autoTopUpProblem,
    LowBalanceAlertThreshold: orNull(wallet.lowBalanceAlertMinor, money),
    LowBalanceAlerted: wallet.lowBalanceAlerted,
    CreatedAt: wallet.createdAt,
    UpdatedAt: wallet.updatedAt,
  };
}

export function toGrantDto(grant: GrantView): Static<typeof GrantOut> {
  const money = (minor: number) => minorToWireNumber(minor, grant.currencyCode);
  return {
    creditGrantID: grant.id,
    walletID: grant.walletId,
    customerID: grant.customerId,
    CurrencyCode: grant.currencyCode,
    Kind: grant.kind,
    Status: grant.status,
    Amount: money(grant.amountMinor),
    Remaining: money(grant.remainingMinor),
    Consumed: money(grant.sums.consume - grant.sums.release),
    Expired: money(grant.sums.expire),
    Voided: money(grant.sums.void),
    Refunded: money(refundedOf(grant.sums)),
    Priority: grant.priority,
    ExpiresAt: grant.expiresAt,
    AppliesTo:
      grant.metricCodes === null && grant.componentIds === null
        ? null
        : { MetricCodes: grant.metricCodes, ComponentIDs: grant.componentIds },
    Note: grant.note,
    TopUpInvoiceID: grant.topUpInvoiceId,
    VoidedAt: grant.voidedAt,
    CreatedAt: grant.createdAt,
    ...(grant.paid
      ? {
          Invoices: grant.paid.map((paid) => ({
            invoiceID: paid.invoiceId,
            Amount: money(paid.amountMinor),
          })),
        }
      : {}),
  };
}

export function toEntryDto(entry: CreditEntry, currencyCode: string): Static<typeof EntryOut> {
  return {
    creditEntryID: entry.id,
    creditGrantID: entry.grantId,
    walletID: entry.walletId,
    Kind: entry.kind,
    Amount: minorToWireNumber(entry.amountMinor, currencyCode),
    invoiceID: entry.invoiceId,
    allocationID: entry.allocationId,
    CreatedAt: entry.createdAt,
  };
}

export function toTopUpDto(topUp: TopUpMade, currencyCode: string): Static<typeof TopUpOut> {
  return {
    walletID: topUp.walletId,
    invoiceID: topUp.invoiceId,
    Amount: minorToWireNumber(topUp.amountMinor, currencyCode),
  };
}
