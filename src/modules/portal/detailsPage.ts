import { isEmailAddress } from '../../core/text.ts';
import { ValidationError } from '../../errors.ts';
import type { FieldProblem } from '../../errors.ts';
import { EditCustomerBody, editContact, editCustomer, getContact, getCustomer } from '../customers/index.ts';
import type { Contact, Customer, CustomerInput } from '../customers/index.ts';
import * as auth from './portalAuth.service.ts';
import type { FormFields, SignedInPage } from './portalHttp.ts';
import { refusedCheckMessage } from './checkRefusals.ts';

/**
 * The billing details a customer may edit (docs/portal.md, "What customers may change"): the form's field, its
 * label, the API's wire name (PUT /v1/customers/{customerID}) and the domain input it sets. Nothing else of the
 * customer (its name, currency, collection or tax settings) is on the form, so nothing else can change.
 */
const CUSTOMER_FIELDS = [
  { field: 'Company', label: 'Company', wire: 'Company', key: 'company', autocomplete: 'organization' },
  {
    field: 'Address1',
    label: 'Address line 1',
    wire: 'Address1',
    key: 'address1',
    autocomplete: 'address-line1',
  },
  {
    field: 'Address2',
    label: 'Address line 2',
    wire: 'Address2',
    key: 'address2',
    autocomplete: 'address-line2',
  },
  { field: 'City', label: 'City', wire: 'City', key: 'city', autocomplete: 'address-level2' },
  { field: 'ZipCode', label: 'Postal code', wire: 'ZipCode', key: 'zipCode', autocomplete: 'postal-code' },
  { field: 'Country', label: 'Country', wire: 'Country', key: 'country', autocomplete: 'country-name' },
  { field: 'VatNo', label: 'VAT number', wire: 'VatNo', key: 'vatNo', autocomplete: 'off' },
] as const;

/** The signed-in contact's own e-mail; other contacts' are the business's to change. */
const EMAIL = { field: 'ContactEmail', label: 'Your e-mail address', max: 254 };
/** Asked only when the e-mail address changes: it is where a password reset is sent. */
const PASSWORD = { field: 'CurrentPassword', label: 'Current password' };

/** docs/portal.md, "What customers may change": each change tells the old address, so they are few a day. */
const TOO_MANY_EMAIL_CHANGES = `${EMAIL.label} can be changed at most ${auth.EMAIL_CHANGES_PER_DAY} times a day. Try again tomorrow, or ask us to change it.`;

type CustomerKey = (typeof CUSTOMER_FIELDS)[number]['key'];

const labelOf = (field: string) =>
  field === EMAIL.field
    ? EMAIL.label
    : field === PASSWORD.field
      ? PASSWORD.label
      : (CUSTOMER_FIELDS.find((f) => f.field === field)?.label ?? field);

/** A stored value as the form shows it, and a form's value as it compares with one ('' is none). */
const shown = (value: string | null | undefined) => value ?? '';
const given = (fields: FormFields, field: string) => (fields[field] ?? '').trim();

/** The fields that differ from what is stored: only they are sent to the use case, so an unchanged form changes nothing. */
function customerChanges(customer: Customer, fields: FormFields): CustomerInput {
  const input: CustomerInput = {};
  for (const f of CUSTOMER_FIELDS) {
    const value = given(fields, f.field);
    if (value !== shown(customer[f.key as CustomerKey]))
      input[f.key as CustomerKey] = value === '' ? null : value;
  }
  return input;
}

/** The longest value the API's schema takes for a wire field of PUT /v1/customers/{customerID}. */
function maxLengthOf(wire: string): number | undefined {
  const schema = (EditCustomerBody.properties as Record<string, Record<string, unknown>>)[wire];
  const variants = [schema, ...((schema?.['anyOf'] as Record<string, unknown>[] | undefined) ?? [])];
  const max = variants.map((v) => v?.['maxLength']).find((m) => typeof m === 'number');
  return max as number | undefined;
}

/**
 * The API's schema limits, checked as it checks PUT /v1/customers/{customerID}'s body: each field's maxLength,
 * read from that schema. (The form's values are all text, the only type those fields take besides null.)
 */
function schemaProblems(input: CustomerInput): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const f of CUSTOMER_FIELDS) {
    const value = input[f.key as CustomerKey];
    const max = maxLengthOf(f.wire);
    if (typeof value === 'string' && max !== undefined && [...value].length > max) {
      problems.push({ field: f.field, message: `${f.label} must be at most ${max} characters` });
    }
  }
  return problems;
}

/** Problems of the use case, keyed by wire names, as the form shows them: each names the field's label. */
function asFormErrors(problems: FieldProblem[]): FieldProblem[] {
  return problems.map((p) => {
    const f = CUSTOMER_FIELDS.find((c) => c.wire === p.field);
    const field = f?.field ?? (p.field === 'Email' ? EMAIL.field : p.field);
    if (field === PASSWORD.field) return { field, message: 'Your current password is not right' };
    return { field, message: `${labelOf(field)} ${p.message}` };
  });
}

/** The billing details form: as stored, or as sent with its problems; `notice` says what was just saved. */
async function detailsForm(
  page: SignedInPage,
  status: number,
  extras: { fields?: FormFields; errors?: FieldProblem[]; notice?: string } = {},
) {
  const ctx = page.portal.ctx;
  const customer = await getCustomer(ctx, page.session.customerId);
  const contact = await getContact(ctx, page.session.contactId);
  const values: FormFields = extras.fields ?? {
    ...Object.fromEntries(CUSTOMER_FIELDS.map((f) => [f.field, shown(customer[f.key as CustomerKey])])),
    [EMAIL.field]: contact.email,
  };
  const errors = extras.errors ?? [];
  return page.render(status, 'details', {
    title: 'Billing details',
    current: 'details',
    csrf: page.session.csrfToken,
    customerFields: CUSTOMER_FIELDS.map((f) => ({ ...f, max: maxLengthOf(f.wire) })),
    email: EMAIL,
    password: PASSWORD,
    values,
    currency: customer.currencyCode,
    errors,
    invalidFields: errors.map((e) => e.field),
    notice: extras.notice,
  });
}

/** The billing details; `saved`: they were just saved. */
export const detailsPage = (page: SignedInPage, saved: boolean) =>
  detailsForm(page, 200, { notice: saved ? 'Your billing details were saved.' : undefined });

/**
 * The form's problems, all found before anything is written, so that a refused form changes nothing at all: the
 * API's schema limits, the e-mail address, NUL characters, and the current password an e-mail change asks for.
 */
function formProblems(input: CustomerInput, fields: FormFields, emailChanges: boolean): FieldProblem[] {
  const email = given(fields, EMAIL.field);
  const problems = schemaProblems(input);
  if (email.length > EMAIL.max || !isEmailAddress(email)) {
    problems.push({ field: EMAIL.field, message: `${EMAIL.label} must be an e-mail address` });
  }
  for (const f of [...CUSTOMER_FIELDS, EMAIL]) {
    // PostgreSQL cannot store NUL in text; the API refuses it in JSON bodies too.
    if (given(fields, f.field).includes('\u0000')) {
      problems.push({ field: f.field, message: `${f.label} must not contain NUL characters` });
    }
  }
  const currentPassword = fields[PASSWORD.field] ?? '';
  if (emailChanges && currentPassword === '' && !problems.some((p) => p.field === EMAIL.field)) {
    problems.push({
      field: PASSWORD.field,
      message: 'Enter your current password to change your e-mail address',
    });
  }
  return problems;
}

/** Saves the billing details: only the fields that changed; a changed e-mail address after the current password. */
export async function saveDetailsPage(page: SignedInPage, fields: FormFields) {
  const ctx = page.portal.ctx;
  const customer = await getCustomer(ctx, page.session.customerId);
  const contact = await getContact(ctx, page.session.contactId);
  const input = customerChanges(customer, fields);
  const email = given(fields, EMAIL.field);
  const emailChanges = email !== contact.email;
  const refuse = (errors: FieldProblem[], status = 422) =>
    detailsForm(page, status, { fields: { ...fields, [PASSWORD.field]: '' }, errors });
  const problems = formProblems(input, fields, emailChanges);
  if (problems.length) return refuse(problems);
  let forgetEmailChange = async () => {};
  try {
    // The password is checked before anything is written: a refused form changes nothing at all.
    if (emailChanges) {
      const check = await auth.checkEmailChange(ctx, page.portal.passwordChecks, page.session, {
        currentPassword: (fields[PASSWORD.field] ?? '').slice(0, 1024),
        clientAddress: page.request.ip,
      });
      if (check.kind === 'too_many_changes') {
        return refuse([{ field: EMAIL.field, message: TOO_MANY_EMAIL_CHANGES }], 429);
      }
      if (check.kind !== 'right') {
        return refuse([{ field: PASSWORD.field, message: refusedCheckMessage(page, check) }], 429);
      }
      forgetEmailChange = check.forget;
    }
    if (Object.keys(input).length > 0) await editCustomer(ctx, customer.id, input);
    if (emailChanges) await changeContactEmail(page, contact, email);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // The form changed nothing, so its e-mail change does not count towards the day's.
    await forgetEmailChange();
    return refuse(asFormErrors(error.fields));
  }
  return page.redirect('details?saved=1');
}

/**
 * The signed-in contact's new address, once the checks passed (its only other rules are on the stored name). The
 * change ends every session of the contact; the old address is told and this one goes on.
 */
async function changeContactEmail(page: SignedInPage, contact: Contact, email: string): Promise<void> {
  const ctx = page.portal.ctx;
  await editContact(ctx, contact.id, {
    customerId: contact.customerId,
    name: contact.name,
    lastName: contact.lastName,
    email,
  });
  const sessionId = await auth.emailChanged(ctx, page.session, { from: contact.email, to: email });
  page.setSessionCookie(sessionId);
}
