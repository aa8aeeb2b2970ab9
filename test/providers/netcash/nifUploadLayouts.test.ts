import { describe, expect, it } from 'vitest';
import { niwsClient } from '../../../src/modules/gateways/index.ts';
import { NetcashNifAccount, readNif } from './nifUploadLayouts.ts';
import { NiwsStandIn } from './niwsStandIn.ts';

// The stand-in's Netcash account (nifUploadLayouts.ts) refuses what Netcash's input template does not allow, so
// that the HTTP tests, which expect its problems empty, would see a file we build wrong.

const KEY = '3f2b8c1e-7d4a-4e5b-9c6d-0a1b2c3d4e5f';
const VENDOR = '24ade73c-98cf-47b3-99be-cc7b867b3080';
const nif = (...records: string[][]) => records.map((record) => `${record.join('\t')}\r\n`).join('');
const HEADER = ['H', KEY, '1', 'TwoDay', 'B1S1', '20260312', VENDOR];
const KEY_RECORD = ['K', '101', '102', '131', '132', '133', '134', '136', '162', '301'];
const line = (cents: string, extra1: string) => [
  'T',
  'PM000001',
  'Ada',
  '1',
  'Ada',
  '1',
  '250655',
  '62001234567',
  cents,
  extra1,
];

describe("the stand-in's reading of a NIF file", () => {
  it('reads a well-formed file: its batch, action date and lines by field id', () => {
    const read = readNif(
      nif(HEADER, KEY_RECORD, line('100', '7'), line('250', '8'), ['F', '2', '350', '9999']),
      KEY,
    );
    expect(read).toMatchObject({ batchName: 'B1S1', actionDate: '2026-03-12' });
    expect(typeof read !== 'string' && read.lines.map((l) => [l.line, l.fields['301']])).toEqual([
      [3, '7'],
      [4, '8'],
    ]);
  });

  it("refuses another header's service key, a footer that does not add up, a record out of place", () => {
    const body = [KEY_RECORD, line('100', '7')];
    expect(
      readNif(nif(HEADER, ...body, ['F', '1', '100', '9999']), '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d'),
    ).toMatch(/not the ServiceKey sent/);
    expect(readNif(nif(HEADER, ...body, ['F', '1', '101', '9999']), KEY)).toMatch(/is not F 1 100 9999/);
    expect(readNif(nif(HEADER, line('100', '7'), KEY_RECORD, ['F', '1', '100', '9999']), KEY)).toMatch(
      /K record/,
    );
  });

  it('answers a malformed upload 102 and keeps it as a problem; a wrong key 100', async () => {
    const netcash = new NetcashNifAccount({ serviceKey: KEY, accountServiceKey: VENDOR });
    const client = niwsClient(new NiwsStandIn(netcash.layouts()).fetch);
    const upload = (serviceKey: string, file: string) =>
      client.call('nif', 'BatchFileUpload', [
        ['ServiceKey', serviceKey],
        ['File', file],
      ]);
    expect(await upload(KEY, nif(HEADER, KEY_RECORD, ['F', '0', '0', '9999']))).toBe('102');
    expect(netcash.problems).toEqual(['BatchFileUpload.File: the last record is not an F record']);
    expect(await upload(VENDOR, nif(HEADER))).toBe('100');
  });
});
