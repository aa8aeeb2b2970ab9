import type { Static } from '@sinclair/typebox';
import type { Contact } from './customer.ts';
import type { ContactInput } from './contact.service.ts';
import type { ContactOut, CreateContactBody, EditContactBody } from './contacts.schemas.ts';

export function toContactDto(contact: Contact): Static<typeof ContactOut> {
  return {
    customerContactID: contact.id,
    customerID: contact.customerId,
    Name: contact.name,
    LastName: contact.lastName,
    Email: contact.email,
    Cell: contact.cell,
    Username: contact.username,
    isActive: contact.isActive,
  };
}

export function contactInputFromWire(body: CreateContactBody | EditContactBody): ContactInput {
  return {
    customerId: body.customerID,
    name: body.Name,
    lastName: body.LastName,
    email: body.Email,
    username: body.Username,
    password: body.Password,
    cell: body.Cell,
    isActive: body.isActive,
    changePassword: 'changePassword' in body ? body.changePassword : undefined,
  };
}
