import { describe, expect, it } from 'vitest';
import { editDistance, nearestField, refusingUnknownFields, writableFieldsAt } from './unknownFields.ts';

describe('editDistance', () => {
  it('counts an insertion, a deletion, a substitution and a swap of neighbours as one edit each', () => {
    expect(editDistance('Email', 'Email')).toBe(0);
    expect(editDistance('Emal', 'Email')).toBe(1);
    expect(editDistance('Emaill', 'Email')).toBe(1);
    expect(editDistance('Emoil', 'Email')).toBe(1);
    expect(editDistance('Emial', 'Email')).toBe(1);
    expect(editDistance('', 'Qty')).toBe(3);
    expect(editDistance('VersionNo', 'VersionName')).toBe(3);
  });
});

describe('nearestField', () => {
  const customer = ['Name', 'Email', 'EmailCC', 'Address1', 'Address2', 'City'];

  it('prefers the same name in another letter case over a closer spelling', () => {
    expect(nearestField('email', customer)).toBe('Email');
    expect(nearestField('CITY', customer)).toBe('City');
  });

  it('suggests the nearest field within one edit per four letters, the first declared on a tie', () => {
    expect(nearestField('Emial', customer)).toBe('Email');
    expect(nearestField('Qyt', ['Descrip', 'Qty', 'UnitCostEx'])).toBe('Qty');
    expect(nearestField('Address', customer)).toBe('Address1');
    expect(nearestField('EmailBCC', customer)).toBe('EmailCC');
  });

  it('suggests nothing when no field is that close', () => {
    expect(nearestField('Nickname', customer)).toBeUndefined();
    expect(nearestField('VersionNo', ['VersionName', 'isActive'])).toBeUndefined();
    expect(nearestField('x', customer)).toBeUndefined();
  });
});

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
