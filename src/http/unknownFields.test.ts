import { describe, expect, it } from 'vitest';
import { refusingUnknownFields, unknownFieldMessage, writableFieldsAt } from './unknownFields.ts';

describe('refusingUnknownFields', () => {
  it('closes every object, accepts the resource’s own fields at the same place, and keeps explicit choices', () => {
    const body = {
      type: 'object',
      properties: {
        Name: { type: 'string' },
        Lines: { type: 'array', items: { type: 'object', properties: { Qty: { type: 'number' } } } },
        Extra: { type: 'object', additionalProperties: true, properties: {} },
      },
    };
    const resource = {
      type: 'object',
      properties: {
        id: { type: 'integer' },
        Name: { type: 'string' },
        Lines: { type: 'array', items: { type: 'object', properties: { lineID: { type: 'integer' } } } },
      },
    };
    expect(refusingUnknownFields(body, resource)).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        Name: { type: 'string' },
        Lines: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            properties: { Qty: { type: 'number' }, lineID: true },
          },
        },
        Extra: { type: 'object', additionalProperties: true, properties: {} },
        id: true,
      },
    });
    // The body schema itself is left as it was: the API reference documents it.
    expect(body).not.toHaveProperty('additionalProperties');
  });

  it('refuses an intersection, whose parts would each refuse the others’ fields', () => {
    expect(() => refusingUnknownFields({ allOf: [{ type: 'object', properties: {} }] }, undefined)).toThrow(
      /allOf/,
    );
  });
});

describe('writableFieldsAt', () => {
  const closed = refusingUnknownFields(
    {
      type: 'object',
      properties: {
        'a/b': {
          anyOf: [{ type: 'array', items: { type: 'object', properties: { Qty: { type: 'number' } } } }],
        },
      },
    },
    { type: 'object', properties: { id: { type: 'integer' } } },
  );

  it('names the fields declared where an error points, leaving out those only accepted as read', () => {
    expect(writableFieldsAt(closed, '#/additionalProperties')).toEqual(['a/b']);
    expect(writableFieldsAt(closed, '#/properties/a~1b/anyOf/0/items/additionalProperties')).toEqual(['Qty']);
    expect(writableFieldsAt(closed, '#/properties/nowhere/additionalProperties')).toEqual([]);
  });
});

describe('unknownFieldMessage', () => {
  const customer = ['Name', 'LastName', 'Email', 'Tel', 'Cell', 'ZipCode', 'City', 'Address1'];

  it('offers the field another word stands for, among the body’s real fields', () => {
    expect(unknownFieldMessage('Surname', customer)).toBe('unknown field; did you mean LastName?');
    expect(unknownFieldMessage('PostalCode', customer)).toBe('unknown field; did you mean ZipCode?');
    expect(unknownFieldMessage('post_code', customer)).toBe('unknown field; did you mean ZipCode?');
    expect(unknownFieldMessage('FirstName', customer)).toBe('unknown field; did you mean Name?');
    expect(unknownFieldMessage('Phone', customer)).toBe('unknown field; did you mean Tel?');
    expect(unknownFieldMessage('Mobile', customer)).toBe('unknown field; did you mean Cell?');
    expect(unknownFieldMessage('Phone', ['Phone', 'Tel'])).toBe('unknown field; did you mean Phone?');
  });

  it('prefers a near spelling, and offers nothing a body does not have', () => {
    expect(unknownFieldMessage('Emial', customer)).toBe('unknown field; did you mean Email?');
    expect(unknownFieldMessage('Surname', ['Name', 'Email'])).toBe('unknown field');
    expect(unknownFieldMessage('PostalCode', ['Qty', 'Descrip'])).toBe('unknown field');
  });

  it('treats a name an object inherits, such as constructor, as any other unknown field', () => {
    for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf'])
      expect(unknownFieldMessage(name, customer)).toBe('unknown field');
  });
});
