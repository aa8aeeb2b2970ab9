import { findCountry } from '../../core/countries.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { CustomerInput, CustomerWithFigures } from './customer.service.ts';
import type { CustomField, CustomFieldValue } from './customField.service.ts';
import type { CreateCustomerBody, CustomerOut, EditCustomerBody } from './customers.schemas.ts';

export function toCustomerDto(customer: CustomerWithFigures): CustomerOut {
  const { figures } = customer;
  return {
    customerID: customer.id,
    Reference: customer.reference,
    isCompany: customer.isCompany,
    Name: customer.name,
    LastName: customer.lastName,
    RegistrationNumber: customer.registrationNumber,
    VatNo: customer.vatNo,
    Company: customer.company,
    Email: customer.email,
    EmailCC: customer.emailCc,
    Cell: customer.cell,
    Tel: customer.tel,
    Fax: customer.fax,
    Address1: customer.address1,
    Address2: customer.address2,
    City: customer.city,
    State: customer.state,
    // A customer given only countryID shows its country's name (docs/spec-decisions.md, Customers, "Fields").
    Country:
      customer.country ||
      (customer.countryId === null ? null : (findCountry(customer.countryId)?.name ?? null)),
    ZipCode: customer.zipCode,
    CountryState: customer.countryState,
    countryID: customer.countryId,
    countryStateID: customer.countryStateId === null ? null : String(customer.countryStateId),
    PrimaryGatewayID: customer.primaryGatewayId,
    CurrencyCode: customer.currencyCode,
    CreatedDate: customer.createdAt,
    isSuspended: customer.isSuspended,
    SuspendedDate: customer.suspendedAt,
    isActive: customer.isActive,
    comp_status: customer.status,
    isWaiveTaxes: customer.isWaiveTaxes,
    PaymentMethod: customer.paymentMethod,
    ActiveSubs: figures.activeSubscriptions,
    Balance: minorToWireNumber(figures.balanceMinor, customer.currencyCode),
    autoSendInvoice: customer.autoSendInvoice,
    autoSendStatement: customer.autoSendStatement,
    StatementDate: customer.statementDate,
    StatementLastSentDate: customer.statementLastSentAt,
    // Beyond the spec, shown only when set: a customer without one reads as it always did.
    ...(customer.billCycleDay === null ? {} : { BillCycleDay: customer.billCycleDay }),
    PrimaryPaymentMethodInfo: figures.primaryPaymentMethod && {
      paymentMethodID: figures.primaryPaymentMethod.paymentMethodId,
      Token: figures.primaryPaymentMethod.token,
    },
  };
}

export function toCustomerByIdsDto(customer: CustomerWithFigures) {
  return { ...toCustomerDto(customer), PrimaryPaymentMethod: customer.figures.primaryPaymentMethod !== null };
}

export function toCustomerWithCustomFieldsDto(
  customer: CustomerWithFigures,
  customFields: CustomFieldValue[],
) {
  return {
    ...toCustomerDto(customer),
    CustomFields: customFields.map((field) => ({ Key: field.key, Value: field.value })),
  };
}

export function customerInputFromWire(body: CreateCustomerBody | EditCustomerBody): CustomerInput {
  return {
    name: body.Name,
    reference: body.Reference,
    isCompany: body.isCompany,
    lastName: body.LastName,
    registrationNumber: body.RegistrationNumber,
    vatNo: body.VatNo,
    company: body.Company,
    email: body.Email,
    emailCc: body.EmailCC,
    cell: body.Cell,
    tel: body.Tel,
    fax: body.Fax,
    address1: body.Address1,
    address2: body.Address2,
    city: body.City,
    state: body.State,
    country: body.Country,
    zipCode: body.ZipCode,
    countryState: body.CountryState,
    countryId: body.countryID,
    countryStateId: body.countryStateID,
    primaryGatewayId: body.PrimaryGatewayID,
    currencyCode: body.CurrencyCode,
    isActive: body.isActive,
    isSuspended: body.isSuspended,
    isWaiveTaxes: body.isWaiveTaxes,
    paymentMethod: body.PaymentMethod,
    autoSendInvoice: body.autoSendInvoice,
    autoSendStatement: body.autoSendStatement,
    statementDate: body.StatementDate,
    billCycleDay: body.BillCycleDay,
    customFields: body.CustomFields?.map((field) => ({ key: field.Key, value: field.Value })),
  };
}

export function toCustomFieldDto(field: CustomField) {
  return { customFieldID: field.id, Key: field.key };
}
