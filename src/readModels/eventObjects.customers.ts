import type { ServiceContext } from '../context.ts';
import { accountsByIds, apiKeysByIds, toAccountDto } from '../modules/auth/index.ts';
import {
  billableMetricsByIds,
  componentVersionsByIds,
  componentsByIds,
  enabledCurrenciesByCodes,
  packageGroupsByIds,
  packageVersionsByIds,
  packagesByIds,
  taxSettingsByIds,
  toBillableMetricDto,
  toComponentDto,
  toComponentVersionDto,
  toPackageGroupDto,
  toTaxSettingDto,
} from '../modules/catalogue/index.ts';
import type { Customer } from '../modules/customers/index.ts';
import {
  contactsByIds,
  customFieldValues,
  customFieldsByIds,
  customersByIds,
  notesByIds,
  toContactDto,
  toCustomFieldDto,
  toCustomerWithCustomFieldsDto,
  toNoteDto,
} from '../modules/customers/index.ts';
import type { EventObjectRenderer } from '../modules/events/index.ts';
import { gatewaysByIds, toGatewayDto } from '../modules/gateways/index.ts';
import { withCustomerFigures } from './customers.view.ts';
import { numericRenderer } from './eventObjectRenderer.ts';
import { packageVersionsOut, packagesOut } from './packages.view.ts';

/**
 * A customer as GET /v1/customers/{id} returns it, with its `CustomFields` as GET /v1/customers/with_customfields
 * lists them: setting a custom field value is a change of the customer, and a consumer must see which.
 */
async function customersWithCustomFields(ctx: ServiceContext, customers: Customer[]): Promise<object[]> {
  const values = await customFieldValues(
    ctx,
    customers.map((customer) => customer.id),
  );
  return (await withCustomerFigures(ctx, customers)).map((customer) =>
    toCustomerWithCustomFieldsDto(customer, values.get(customer.id) ?? []),
  );
}

/** Currencies are named by their code, the only identity they have on the wire. */
const currencyRenderer: EventObjectRenderer = async (ctx, codes) => {
  const found = await enabledCurrenciesByCodes(ctx, codes.map(String));
  return new Map(
    [...found.values()].map((currency) => [
      currency.code,
      { CurrencyCode: currency.code, Name: currency.name },
    ]),
  );
};

/**
 * Event renderers of the resources of customers, the catalogue, the account, its keys and gateways (see
 * eventObjects.ts): each as its single GET returns it.
 */
export const customersEventObjects: Record<string, EventObjectRenderer> = {
  customer: numericRenderer(customersByIds, customersWithCustomFields),
  customer_contact: numericRenderer(contactsByIds, (_ctx, contacts) => contacts.map(toContactDto)),
  customer_note: numericRenderer(notesByIds, (_ctx, notes) => notes.map(toNoteDto)),
  custom_field: numericRenderer(customFieldsByIds, (_ctx, fields) => fields.map(toCustomFieldDto)),
  package: numericRenderer(packagesByIds, packagesOut),
  package_version: numericRenderer(packageVersionsByIds, packageVersionsOut),
  package_group: numericRenderer(packageGroupsByIds, (_ctx, groups) => groups.map(toPackageGroupDto)),
  component: numericRenderer(componentsByIds, (_ctx, components) => components.map(toComponentDto)),
  component_version: numericRenderer(componentVersionsByIds, (_ctx, versions) =>
    versions.map(toComponentVersionDto),
  ),
  billable_metric: numericRenderer(billableMetricsByIds, (_ctx, metrics) => metrics.map(toBillableMetricDto)),
  tax_setting: numericRenderer(taxSettingsByIds, (ctx, settings) =>
    settings.map((setting) => toTaxSettingDto(setting, ctx.account.timeZone)),
  ),
  currency: currencyRenderer,
  account: numericRenderer(accountsByIds, (_ctx, found) =>
    found.map(({ account, seller }) => toAccountDto(account, seller)),
  ),
  // Never the key itself: it is shown once, when it is made.
  api_key: numericRenderer(apiKeysByIds, (_ctx, keys) =>
    keys.map((key) => ({
      apiKeyID: key.id,
      KeyPrefix: key.keyPrefix,
      CreatedDate: key.createdAt,
      RevokedDate: key.revokedAt,
    })),
  ),
  gateway: numericRenderer(gatewaysByIds, (_ctx, gateways) => gateways.map(toGatewayDto)),
};
