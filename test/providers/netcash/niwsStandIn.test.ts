import { describe, expect, it } from 'vitest';
import { GatewayTimeoutError } from '../../../src/modules/gateways/index.ts';
import { NiwsFaultError, niwsClient } from '../../../src/modules/gateways/index.ts';
import { NiwsStandIn, niwsChecks } from './niwsStandIn.ts';
import type { NiwsMethodLayout } from './niwsStandIn.ts';

const KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';

const echo: NiwsMethodLayout = {
  service: 'nif',
  method: 'RequestFileUploadReport',
  parameters: [{ name: 'ServiceKey', check: niwsChecks.guid }, { name: 'FileToken' }],
  source: 'https://api.netcash.co.za/inbound-payments/standard-debit-orders/',
  answer: (values) => `report of ${values.FileToken} & more`,
};

const structured: NiwsMethodLayout = {
  service: 'nif',
  method: 'Structured',
  parameters: [{ name: 'ServiceKey' }, { name: 'Note', optional: true }],
  source: 'test',
  answer: () => ({
    namespace: 'urn:contract',
    fields: [
      ['Code', '0'],
      ['Message', '<ok>'],
    ],
  }),
};

describe('the NIWS client against the stand-in', () => {
  it('sends the method in its namespace with its parameters in order, and reads a text or a structure', async () => {
    const standIn = new NiwsStandIn([echo, structured]);
    const client = niwsClient(standIn.fetch);
    expect(
      await client.call('nif', 'RequestFileUploadReport', [
        ['ServiceKey', KEY],
        ['FileToken', 'a<b'],
      ]),
    ).toBe('report of a<b & more');
    expect(await client.call('nif', 'Structured', [['ServiceKey', KEY]])).toEqual({
      Code: '0',
      Message: '<ok>',
    });
    expect(standIn.problems).toEqual([]);
    expect(standIn.callsOf('RequestFileUploadReport')).toEqual([
      { method: 'RequestFileUploadReport', values: { ServiceKey: KEY, FileToken: 'a<b' } },
    ]);
  });

  it('answers a fault, kept as a problem, for parameters out of order, unknown or badly formed', async () => {
    const standIn = new NiwsStandIn([echo]);
    const client = niwsClient(standIn.fetch);
    await expect(
      client.call('nif', 'RequestFileUploadReport', [
        ['FileToken', 'x'],
        ['ServiceKey', KEY],
      ]),
    ).rejects.toThrow(NiwsFaultError);
    await expect(
      client.call('nif', 'RequestFileUploadReport', [
        ['ServiceKey', 'nope'],
        ['FileToken', 'x'],
        ['Extra', '1'],
      ]),
    ).rejects.toThrow(/not a GUID; RequestFileUploadReport: unknown parameter Extra/);
    await expect(client.call('validation', 'RequestFileUploadReport', [])).rejects.toThrow(/has no method/);
    expect(standIn.problems).toHaveLength(3);
    expect(standIn.requests).toEqual([]);
  });

  it('refuses a wrong SOAPAction as WCF does, and turns a lost answer into a timeout', async () => {
    const standIn = new NiwsStandIn([echo]);
    const wrongAction: typeof fetch = (input, init) =>
      standIn.fetch(input, {
        ...init,
        headers: { ...init?.headers, soapaction: '"http://tempuri.org/NIWS_NIF/X"' },
      });
    await expect(niwsClient(wrongAction).call('nif', 'RequestFileUploadReport', [])).rejects.toThrow(
      /ContractFilter mismatch/,
    );
    const lost: typeof fetch = () => Promise.reject(new Error('socket hang up'));
    await expect(niwsClient(lost).call('nif', 'RequestFileUploadReport', [])).rejects.toThrow(
      GatewayTimeoutError,
    );
    const proxyPage: typeof fetch = async () => new Response('<html><body>502 Bad Gateway', { status: 502 });
    await expect(niwsClient(proxyPage).call('nif', 'RequestFileUploadReport', [])).rejects.toThrow(/not XML/);
  });
});
