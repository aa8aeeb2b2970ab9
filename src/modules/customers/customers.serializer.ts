import { findCountry } from '../../core/countries.ts';
import { minorToWireNumber } from '../../core/money.ts';
import type { CustomerInput, CustomerWithFigures } from './customer.service.ts';
import type { CustomField, CustomFieldValue } from './customField.service.ts';
import type { CreateCustomerBody, CustomerOut, EditCustomerBody } from './customers.schemas.ts';

export function toCustomerDto({ row, status, figures }: CustomerWithFigures): CustomerOut {
  return {
    customerID: row.id,
    Reference: row.reference,
    isCompany: Boolean(row.is_company),
    Name: row.name,
    LastName: row.last_name,
    RegistrationNumber: row.registration_number,
    VatNo: row.vat_no,
    Company: row.company,
    Email: row.email,
    EmailCC: row.email_cc,
    Cell: row.cell,
    Tel: row.tel,
    Fax: row.fax,
    Address1: row.address1,
    Address2: row.address2,
    City: row.city,
    State: row.state,
    // A customer given only countryID shows its country's name (docs/spec-decisions.md, Customers, "Fields").
    Country: row.country || (row.country_id === null ? null : (findCountry(row.country_id)?.name ?? null)),
    ZipCode: row.zip_code,
    CountryState: row.country_state,
    countryID: row.country_id,
    countryStateID: row.country_state_id === null ? null : String(row.country_state_id),
    PrimaryGatewayID: row.primary_gateway_id,
    CurrencyCode: row.currency_code,
    CreatedDate: row.created_at,
    isSuspended: Boolean(row.is_suspended),
    SuspendedDate: row.suspended_at,
    isActive: Boolean(row.is_active),
    comp_status: status,
    isWaiveTaxes: Boolean(row.is_waive_taxes),
    PaymentMethod: row.payment_method,
    ActiveSubs: figures.activeSubscriptions,
    Balance: minorToWireNumber(figures.balanceMinor, row.currency_code),
    autoSendInvoice: Boolean(row.auto_send_invoice),
    autoSendStatement: Boolean(row.auto_send_statement),
    StatementDate: row.statement_date,
    StatementLastSentDate: row.statement_last_sent_at,
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
    customFields: body.CustomFields?.map((field) => ({ key: field.Key, value: field.Value })),
  };
}

export function toCustomFieldDto(field: CustomField) {
  return { customFieldID: field.id, Key: field.key };
}
