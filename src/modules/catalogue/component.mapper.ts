import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  ComponentBracketsTable,
  ComponentVersionCurrenciesTable,
  ComponentVersionsTable,
  ComponentsTable,
} from './tables.ts';
import type {
  ComponentBracket,
  ComponentFields,
  ComponentRecord,
  ComponentVersionRecord,
  NewComponent,
  NewComponentVersion,
  VersionCurrencyRecord,
  VersionOfComponent,
} from './component.ts';

// The component tables' columns become the domain's names here, and nowhere else.

export function componentFromRow(row: Selectable<ComponentsTable>): ComponentRecord {
  return {
    id: row.id,
    packageGroupId: row.package_group_id,
    componentCode: row.component_code,
    name: row.name,
    descrip: row.descrip,
    isActive: Boolean(row.is_active),
    unitName: row.unit_name,
    term: row.term,
    termType: row.term_type,
    type: row.type,
    scheme: row.scheme,
    createdAt: row.created_at,
    metricId: row.metric_id === null ? null : Number(row.metric_id),
  };
}

export function componentVersionFromRow(row: Selectable<ComponentVersionsTable>): ComponentVersionRecord {
  return {
    id: row.id,
    componentId: row.component_id,
    versionNo: row.version_no,
    versionName: row.version_name,
    isDefault: Boolean(row.is_default),
    isActive: Boolean(row.is_active),
    createdAt: row.created_at,
  };
}

export function versionCurrencyFromRow(
  row: Selectable<ComponentVersionCurrenciesTable>,
): VersionCurrencyRecord {
  return {
    id: row.id,
    componentVersionId: row.component_version_id,
    currencyCode: row.currency_code,
    isTaxInclusive: row.is_tax_inclusive === null ? null : Boolean(row.is_tax_inclusive),
    pack:
      row.package_size === null
        ? null
        : { packageSize: row.package_size, price: row.package_price ?? '0', freeUnits: row.free_units },
  };
}

export function bracketFromRow(row: Selectable<ComponentBracketsTable>): ComponentBracket {
  return {
    id: row.id,
    componentVersionCurrencyId: row.component_version_currency_id,
    price: row.price,
    qtyFrom: row.qty_from,
    qtyTill: row.qty_till,
    flatPrice: row.flat_price,
  };
}

/** The columns of a component's own fields, in the order its checks name them; componentCode only when given. */
export function componentFieldsToRow(
  fields: ComponentFields,
): Updateable<Omit<ComponentsTable, 'id' | 'account_id' | 'created_at' | 'last_version_no'>> {
  return {
    name: fields.name,
    descrip: fields.descrip,
    is_active: fields.isActive,
    unit_name: fields.unitName,
    package_group_id: fields.packageGroupId,
    term: fields.term,
    term_type: fields.termType,
    type: fields.type,
    scheme: fields.scheme,
    ...(fields.componentCode === undefined ? {} : { component_code: fields.componentCode }),
    ...(fields.metricId === undefined ? {} : { metric_id: fields.metricId }),
  };
}

export function newComponentToRow(component: NewComponent): Insertable<ComponentsTable> {
  return {
    ...componentFieldsToRow(component),
    component_code: component.componentCode,
    account_id: component.accountId,
    last_version_no: component.lastVersionNo,
    created_at: component.createdAt,
  } as Insertable<ComponentsTable>;
}

export function newComponentVersionToRow(version: NewComponentVersion): Insertable<ComponentVersionsTable> {
  return {
    account_id: version.accountId,
    component_id: version.componentId,
    version_no: version.versionNo,
    version_name: version.versionName,
    is_default: version.isDefault,
    is_active: version.isActive,
    created_at: version.createdAt,
  };
}

/** A version read with its component's name, unit and scheme (usage pricing). */
export function versionOfComponentFromRow(
  row: Pick<Selectable<ComponentVersionsTable>, 'id' | 'component_id' | 'version_no'> &
    Pick<Selectable<ComponentsTable>, 'name' | 'unit_name' | 'scheme'>,
): VersionOfComponent {
  return {
    id: row.id,
    componentId: row.component_id,
    versionNo: row.version_no,
    name: row.name,
    unitName: row.unit_name,
    scheme: row.scheme,
  };
}
