/**
 * Request bodies refuse fields the operation does not define (docs/spec-decisions.md, "Request bodies"): a typo
 * such as `Emial` is a 422 naming it, with the nearest field it may have meant, instead of a customer created
 * without an e-mail address.
 *
 * Two kinds of field are accepted beyond an operation's own:
 * - the spelling variants a body schema declares itself (`allocations` and `Allocations`, `isAutoApply`...);
 * - the fields of the resource as this API returns it (`customerID`, `Balance`, `comp_status`...), accepted and
 *   ignored: clients of the original service send back whole objects they read.
 */

import { nearestName } from '../core/nearestName.ts';

type Schema = Record<string, unknown>;

function isSchema(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function propertiesOf(schema: Schema | undefined): Record<string, unknown> | undefined {
  return isSchema(schema?.properties) ? schema.properties : undefined;
}

/** The object schemas a resource schema may stand for: itself, or each branch of a union of responses. */
function resourceBranches(resource: unknown): Schema[] {
  if (!isSchema(resource)) return [];
  const branches = [resource.anyOf, resource.oneOf].find(Array.isArray);
  return branches ? branches.flatMap(resourceBranches) : [resource];
}

/** What a client may send back at this place of the resource: its properties, and each one's schema. */
function resourceFields(resource: Schema[]): Map<string, Schema[]> {
  const fields = new Map<string, Schema[]>();
  for (const branch of resource)
    for (const [name, schema] of Object.entries(propertiesOf(branch) ?? {}))
      fields.set(name, [...(fields.get(name) ?? []), ...resourceBranches(schema)]);
  return fields;
}

function itemsOf(resource: Schema[]): Schema[] {
  return resource.flatMap((schema) => resourceBranches(schema.items));
}

/**
 * A copy of a body schema in which every object refuses properties it does not declare, unless it says itself
 * what it does with them (an explicit `additionalProperties`). `resource` is the schema of what the operation
 * reads or writes as the API returns it: its properties, at the same place, are accepted as `true` (any value,
 * ignored), so that a client can send back what it read.
 */
export function refusingUnknownFields(body: unknown, resource: unknown): unknown {
  return strict(body, resourceBranches(resource));
}

function strict(schema: unknown, resource: Schema[]): unknown {
  if (!isSchema(schema)) return schema;
  if (Array.isArray(schema.allOf))
    // additionalProperties is checked per subschema, so each part of an intersection would refuse the others'.
    throw new Error('A request body schema may not use allOf (Type.Intersect): declare one object instead');
  const copy: Schema = { ...schema };
  for (const key of ['anyOf', 'oneOf'] as const)
    if (Array.isArray(schema[key])) copy[key] = schema[key].map((branch) => strict(branch, resource));
  if (schema.items !== undefined) copy.items = strict(schema.items, itemsOf(resource));
  const properties = propertiesOf(schema);
  if (properties) {
    const echoed = resourceFields(resource);
    const strictProperties: Schema = {};
    for (const [name, property] of Object.entries(properties))
      strictProperties[name] = strict(property, echoed.get(name) ?? []);
    if (schema.additionalProperties === undefined) {
      for (const name of echoed.keys()) if (!(name in strictProperties)) strictProperties[name] = true;
      copy.additionalProperties = false;
    }
    copy.properties = strictProperties;
  }
  return copy;
}

/**
 * The fields a client may mean where an error's schema path points (`#/properties/Charges/items/additionalProperties`):
 * the object's declared ones, not those only accepted as read.
 */
export function writableFieldsAt(schema: unknown, schemaPath: string): string[] {
  const steps = schemaPath.replace(/^#\/?/, '').split('/').slice(0, -1);
  let object: unknown = schema;
  for (const step of steps) {
    const key = decodeURIComponent(step).replace(/~1/g, '/').replace(/~0/g, '~');
    object = isSchema(object) || Array.isArray(object) ? (object as Record<string, unknown>)[key] : undefined;
  }
  const properties = isSchema(object) ? propertiesOf(object) : undefined;
  return Object.entries(properties ?? {})
    .filter(([, property]) => property !== true)
    .map(([name]) => name);
}

/**
 * Other words for the spec's field names, as people coming from other billing systems write them (docs/spec-decisions.md,
 * "Request bodies"). Keys are written names in lower case without separators; each lists the fields it may mean,
 * of which the first the body really has is offered, so `Phone` means `Tel` where there is no `Phone`. A Map, not an
 * object: a written name such as `constructor` must find nothing, not the prototype's function.
 */
const FIELD_SYNONYMS = new Map<string, readonly string[]>(
  Object.entries({
    surname: ['LastName'],
    familyname: ['LastName'],
    firstname: ['Name', 'FirstName'],
    givenname: ['Name', 'FirstName'],
    fullname: ['Name'],
    postalcode: ['ZipCode'],
    postcode: ['ZipCode'],
    zip: ['ZipCode'],
    postal: ['ZipCode'],
    phone: ['Phone', 'Tel'],
    phonenumber: ['Phone', 'Tel'],
    telephone: ['Tel', 'Phone'],
    mobile: ['Cell', 'Mobile'],
    mobilephone: ['Cell', 'Mobile'],
    cellphone: ['Cell', 'Mobile'],
    emailaddress: ['Email'],
    town: ['City'],
    province: ['State'],
    region: ['State'],
    street: ['Address1'],
    addressline1: ['Address1'],
    addressline2: ['Address2'],
    companyname: ['Company'],
    vatnumber: ['VatNo'],
    taxnumber: ['VatNo'],
    currency: ['CurrencyCode'],
  }),
);

/** The field a written name is another word for, among those the body really has. */
export function synonymOf(written: string, known: readonly string[]): string | undefined {
  const key = written.toLowerCase().replace(/[^a-z0-9]/g, '');
  return FIELD_SYNONYMS.get(key)?.find((name) => known.includes(name));
}

/** The same name in another case or a near spelling first (nearestName.ts), else another word for a field. */
export function unknownFieldMessage(name: string, known: readonly string[]): string {
  const nearest = nearestName(name, known) ?? synonymOf(name, known);
  return nearest ? `unknown field; did you mean ${nearest}?` : 'unknown field';
}
