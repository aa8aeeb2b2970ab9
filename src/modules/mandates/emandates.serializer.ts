import { startOfDate } from '../../core/calendar.ts';
import { maskedAccountNumber } from './mandates.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { Emandate, EmandateFlow } from './emandate.ts';
import type { EmandateInput } from './emandate.service.ts';
import { firstCollectionDate } from './mandateChecks.ts';
import type { EmandateBody, EmandateOut } from './emandates.schemas.ts';

export function emandateInputFromWire(body: EmandateBody): EmandateInput {
  return {
    name: body.Name,
    lastName: body.Lastname,
    company: body.Company,
    tradingAs: body.TradingAs,
    tel: body.Tel,
    email: body.Email,
    address1: body.Address1,
    address2: body.Address2,
    city: body.City,
    state: body.State,
    countryIsoCode: body.CountryISOCode,
    postalCode: body.PostalCode,
    bankName: body.bank_Name,
    bankBranchCode: body.bank_BranchCode,
    bankAccHolder: body.bank_AccHolder,
    bankAccNumber: body.bank_AccNumber,
    bankAccountType: body.bank_AccountType,
    debitActionDay: body.debit_ActionDay,
    debitStartDate: body.debit_StartDate,
    debitEndDate: body.debit_EndDate,
    debitFrequency: body.debit_Frequency,
    debitEscalation: body.debit_Escalation,
    debitAmt: body.debit_Amt,
    debitMaxAmt: body.debit_MaxAmt,
    debitNameOnStmt: body.debit_NameOnStmt,
    debitContractRef: body.debit_ContractRef,
    debitVariableAmts: body.debit_VariableAmts,
    isCustomerEditable: body.isCustomerEditable,
    isCompanySignee: body.isCompanySignee,
    customerId: body.customerID,
    authDomain: body.AuthDomain,
    returnUrl: body.ReturnUrl,
    cancelUrl: body.CancelUrl,
    debiCheck: {
      contractType: body.DebiCheckContractType,
      trackingDays: body.DebiCheckTrackingDays,
      firstAmt: body.DebiCheckFirstAmt,
      idKind: body.DebiCheckIdType,
      idNumber: body.DebiCheckIdNumber,
    },
  };
}

/**
 * A DebiCheck mandate's fields (docs/spec-decisions.md, "DebiCheck mandates"), all null for an ordinary mandate: the
 * identity number only as its last three characters.
 */
function debiCheckDto(mandate: Emandate, timeZone: string) {
  const { debiCheck, debit } = mandate;
  const money = (minor: number) => minorToWireNumber(minor, debit.currencyCode);
  return {
    DebiCheckContractType: debiCheck?.contractType ?? null,
    DebiCheckTrackingDays: debiCheck?.trackingDays ?? null,
    DebiCheckFirstAmt: debiCheck ? money(debiCheck.firstAmountMinor ?? debit.amountMinor) : null,
    DebiCheckFirstCollectionDate: debiCheck ? startOfDate(firstCollectionDate(debit), timeZone) : null,
    DebiCheckIdType: debiCheck?.idKind ?? null,
    DebiCheckIdNumber: debiCheck ? `••••${debiCheck.idEnding}` : null,
    DebiCheckStatus: debiCheck?.status ?? null,
    DebiCheckContractReference: debiCheck?.contractReference ?? null,
    DebiCheckRequested: debiCheck?.requestedAt ?? null,
    DebiCheckExpires: debiCheck?.status === 'pending' ? debiCheck.expiresAt : null,
    DebiCheckAnswered: debiCheck?.answeredAt ?? null,
    DebiCheckReason: debiCheck?.reason ?? null,
  };
}

export type { EmandateFlow };

/**
 * Spec part 2, eMandate, with the account number masked but for its last four digits. `token` is the one the
 * request gave (GET's query, cancel's body): the service keeps only its digest. Events show null (the capability
 * is not theirs: docs/spec-decisions.md, "eMandate tokens at rest").
 */
export function toEmandateDto(mandate: Emandate, timeZone: string, token: string | null): EmandateOut {
  const { signee, bankAccount, debit, beneficiary } = mandate;
  const money = (minor: number) => minorToWireNumber(minor, debit.currencyCode);
  return {
    Token: token,
    customerPaymentMethodID: mandate.paymentMethodId,
    customerID: mandate.customerId,
    Status: mandate.status,
    Name: signee.name,
    LastName: signee.lastName,
    // Spec part 2, eMandate: company and trading name shown only when isCompanySignee is true.
    Company: mandate.isCompanySignee ? signee.company : null,
    TradingAs: mandate.isCompanySignee ? signee.tradingAs : null,
    Tel: signee.tel,
    Email: signee.email,
    Address1: signee.address1,
    Address2: signee.address2,
    City: signee.city,
    State: signee.state,
    PostalCode: signee.postalCode,
    CountryISOCode: signee.countryIsoCode,
    bank_DebitMethod: bankAccount.debitMethod,
    bank_Name: bankAccount.bankName,
    bank_BranchCode: bankAccount.branchCode,
    bank_AccHolder: bankAccount.accountHolder,
    bank_AccNumber: maskedAccountNumber(bankAccount.lastFour),
    bank_AccountType: bankAccount.accountType,
    debit_Frequency: debit.frequency,
    debit_NameOnStmt: debit.nameOnStatement,
    debit_ContractRef: debit.contractRef,
    debit_StartDate: startOfDate(debit.startDate, timeZone),
    debit_ActionDay: debit.actionDay,
    debit_EndDate: debit.endDate && startOfDate(debit.endDate, timeZone),
    debit_Amt: money(debit.amountMinor),
    debit_MaxAmt: money(debit.maxAmountMinor),
    debit_Escalation: debit.escalation === null ? null : Number(debit.escalation),
    debit_VariableAmts: debit.variableAmounts,
    CurrencyCode: debit.currencyCode,
    isCustomerEditable: mandate.isCustomerEditable,
    isCompanySignee: mandate.isCompanySignee,
    DateCreated: mandate.createdAt,
    DateSigned: mandate.signing?.signedAt ?? null,
    DateDeclined: mandate.declinedAt,
    DateCancelled: mandate.cancelledAt,
    Expires: mandate.expiresAt,
    BeneficiaryName: beneficiary.name,
    BeneficiaryContactNumber: beneficiary.contactNumber,
    BeneficiaryWebPage: beneficiary.webPage,
    BeneficiaryEmail: beneficiary.email,
    ...debiCheckDto(mandate, timeZone),
  };
}
