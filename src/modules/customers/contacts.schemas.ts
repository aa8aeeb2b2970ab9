import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Id, Nullable, Text } from '../../http/schemas.ts';

const contactFields = {
  customerID: Id(),
  Name: Text(255, { minLength: 1 }),
  LastName: Text(255, { minLength: 1 }),
  Email: Text(254, { minLength: 1 }),
  Username: Type.Optional(Nullable(Text(100))),
  Password: Type.Optional(
    Nullable(Text(128, { description: 'At least 6 characters with a letter and a number; never returned' })),
  ),
  Cell: Type.Optional(Nullable(Text(50))),
  isActive: Type.Optional(Type.Boolean({ description: 'Portal access; defaults to true on add' })),
};

export const CreateContactBody = Type.Object(contactFields);
export type CreateContactBody = Static<typeof CreateContactBody>;

export const EditContactBody = Type.Object({
  ...contactFields,
  changePassword: Type.Optional(
    Type.Boolean({ description: 'The password is to change; with a blank Password one is generated' }),
  ),
});
export type EditContactBody = Static<typeof EditContactBody>;

export const ContactOut = Type.Object(
  {
    customerContactID: Type.Integer(),
    customerID: Type.Integer(),
    Name: Type.String(),
    LastName: Type.String(),
    Email: Type.String(),
    Cell: Nullable(Type.String()),
    Username: Nullable(Type.String()),
    isActive: Type.Boolean(),
  },
  { $id: 'CustomerContact' },
);

export const ContactIdParams = Type.Object({ customerContactID: Id() });
export const ContactsOfCustomerParams = Type.Object({ customerID: Id() });
