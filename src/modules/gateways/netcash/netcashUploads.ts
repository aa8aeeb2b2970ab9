import type { PlainDate } from '../../../core/calendar.ts';
import type {
  BatchStatus,
  BatchSubmitResult,
  GatewayDriver,
  StatementRequest,
  StatementRetrieval,
} from '../gatewayContract.ts';
import { NiwsFaultError } from './niwsClient.ts';
import type { NiwsClient } from './niwsClient.ts';
import { uploadsThroughWebService } from './netcashSettings.ts';
import { ownEntry } from '../../../core/ownEntry.ts';

/**
 * A netcash gateway's batches through Netcash's NIWS_NIF web service (docs/gateways/netcash.md, "Uploading through
 * NIWS_NIF"): the batch's NIF file uploaded (BatchFileUpload, answered with a file token), its load report read
 * (RequestFileUploadReport), and the account's daily statement asked for and fetched (RequestMerchantStatement,
 * RetrieveMerchantStatement). A gateway whose settings say `uploadThroughWebService: false` has none of these: its
 * files go by a person's download and upload, its statements by a person's upload.
 */

/** What a method answers when it did not do what was asked (api.netcash.co.za, "Web service response codes"). */
const ANSWER_CODES: Readonly<Record<string, string>> = {
  '100': 'authentication failed: check the gateway’s service key',
  '101': 'the date is not CCYYMMDD',
  '102': 'a parameter is incorrect',
  '200': 'general web service error: contact Netcash support',
};

/** The answer of a method that had nothing ready yet ("Web service response codes": FileNotReady). */
const FILE_NOT_READY = 'FILE NOT READY';
/** What an interim statement answers when nothing changed; read as an empty statement. */
const NO_CHANGE = 'NO CHANGE';

/** A code of the table, or any other three digits Netcash answers instead of a result. */
const codeOf = (answer: string): string | undefined => (/^\d{3}$/.test(answer) ? answer : undefined);

const inWords = (code: string): string => `${code} (${ownEntry(ANSWER_CODES, code) ?? 'an error code'})`;

/** A file token as Netcash's pages show one (`20000000.2550236530.0483.2.2`): no space, no tab. */
const FILE_TOKEN = /^[\w.-]{1,100}$/;

const text = (settings: Readonly<Record<string, unknown>>, key: string): string =>
  typeof settings[key] === 'string' ? (settings[key] as string) : '';

/** A text result, or the fault of a method that answered a structure where Netcash's answer is a string. */
async function textResult(client: NiwsClient, method: string, parameters: [string, string][]) {
  const answer = await client.call('nif', method, parameters);
  if (typeof answer !== 'string') throw new NiwsFaultError(method, 'the answer is not text');
  return answer.trim();
}

/**
 * Account numbers never reach our records (docs/gateways/netcash.md, "Batches"): a run of seven digits or more in
 * Netcash's words is shown by its last three only.
 */
export const maskedDigits = (words: string): string =>
  words.replace(/\d{7,}/g, (digits) => `…${digits.slice(-3)}`);

export function netcashUploads(
  client: NiwsClient,
  settings: Readonly<Record<string, unknown>>,
): Pick<GatewayDriver, 'submitBatch' | 'batchStatus' | 'requestStatement' | 'retrieveStatement'> {
  if (!uploadsThroughWebService(settings)) return {};
  const serviceKey = text(settings, 'serviceKey');
  const accountServiceKey = text(settings, 'accountServiceKey');
  return {
    async submitBatch(_target, batch): Promise<BatchSubmitResult> {
      if (batch.file === undefined) throw new Error('Netcash takes a batch as its NIF file');
      const answer = await textResult(client, 'BatchFileUpload', [
        ['ServiceKey', serviceKey],
        ['File', batch.file],
      ]);
      const code = codeOf(answer);
      if (code !== undefined) {
        return {
          outcome: 'rejected',
          message: `Netcash refused the upload: ${inWords(code)}`,
          lineErrors: [],
        };
      }
      if (!FILE_TOKEN.test(answer))
        throw new NiwsFaultError('BatchFileUpload', 'the answer is not a file token');
      return { outcome: 'submitted', providerRef: answer };
    },

    async batchStatus(_target, fileToken, file): Promise<BatchStatus> {
      const answer = await textResult(client, 'RequestFileUploadReport', [
        ['ServiceKey', serviceKey],
        ['FileToken', fileToken],
      ]);
      if (answer.toUpperCase() === FILE_NOT_READY) return { outcome: 'loading' };
      const code = codeOf(answer);
      if (code !== undefined)
        throw new NiwsFaultError('RequestFileUploadReport', `answered ${inWords(code)}`);
      return readLoadReport(answer, file ?? '');
    },

    async requestStatement(_target, day: PlainDate): Promise<StatementRequest> {
      const answer = await textResult(client, 'RequestMerchantStatement', [
        ['ServiceKey', accountServiceKey],
        ['FromActionDate', day.replaceAll('-', '')],
      ]);
      const code = codeOf(answer);
      if (code !== undefined) return { outcome: 'refused', message: `Netcash answered ${inWords(code)}` };
      if (!FILE_TOKEN.test(answer)) {
        throw new NiwsFaultError('RequestMerchantStatement', 'the answer is not a polling id');
      }
      return { outcome: 'requested', pollingId: answer };
    },

    async retrieveStatement(_target, pollingId): Promise<StatementRetrieval> {
      const answer = await client.call('nif', 'RetrieveMerchantStatement', [
        ['ServiceKey', accountServiceKey],
        ['PollingId', pollingId],
      ]);
      if (typeof answer !== 'string') {
        throw new NiwsFaultError('RetrieveMerchantStatement', 'the answer is not text');
      }
      const word = answer.trim().toUpperCase();
      if (word === FILE_NOT_READY) return { outcome: 'not_ready' };
      if (word === NO_CHANGE) return { outcome: 'ready', document: '' };
      const code = codeOf(word);
      if (code !== undefined) return { outcome: 'refused', message: `Netcash answered ${inWords(code)}` };
      return { outcome: 'ready', document: answer };
    },
  };
}

/** The T records of the uploaded file by their line (1-based, as the load report counts), with 101 and 301. */
function transactionLines(file: string): Map<number, { reference: string; lineRef: string }> {
  const records = file.split(/\r?\n/).map((line) => line.split('\t'));
  const key = records.find((fields) => fields[0] === 'K') ?? [];
  const referenceAt = key.indexOf('101');
  const lineRefAt = key.indexOf('301');
  const lines = new Map<number, { reference: string; lineRef: string }>();
  records.forEach((fields, index) => {
    if (fields[0] !== 'T' || referenceAt < 1 || lineRefAt < 1) return;
    lines.set(index + 1, { reference: fields[referenceAt] ?? '', lineRef: fields[lineRefAt] ?? '' });
  });
  return lines;
}

/**
 * The line of the file a report message names: by its line number when that line's reference is the one the
 * message gives, else by the reference when one line alone has it; undefined when neither tells.
 */
function lineNamed(
  lines: ReadonlyMap<number, { reference: string; lineRef: string }>,
  reference: string,
  lineNumber: number | undefined,
): string | undefined {
  const atLine = lineNumber === undefined ? undefined : lines.get(lineNumber);
  if (atLine && (reference === '' || atLine.reference === reference)) return atLine.lineRef;
  const withReference = [...lines.values()].filter((line) => line.reference === reference);
  return withReference.length === 1 ? withReference[0]!.lineRef : undefined;
}

/**
 * Netcash's load report (api.netcash.co.za, "Load Report"): tab-delimited, a `###BEGIN` header (batch name, result
 * SUCCESSFUL / UNSUCCESSFUL / SUCCESSFUL WITH ERRORS, time), one message per error (the line's unique reference,
 * `Line :<n>`, the message; or `###ERROR` and a message about the whole file), a `###END` trailer. Only errors are
 * reported. SUCCESSFUL WITH ERRORS means NetConnector's "Ignore errors" is on and Netcash loaded the other lines:
 * refused too, since the batch we hold is not the one Netcash will collect.
 */
export function readLoadReport(report: string, file: string): BatchStatus {
  const records = report
    .split(/\r?\n/)
    .filter((line) => line.trim() !== '')
    .map((line) => line.split('\t').map((field) => field.trim()));
  const begin = records[0];
  if (begin?.[0] !== '###BEGIN' || records.at(-1)?.[0] !== '###END') {
    throw new NiwsFaultError('RequestFileUploadReport', 'the load report has no ###BEGIN and ###END');
  }
  const batchName = batchNameOfFile(file);
  if (batchName !== undefined && begin[1] !== batchName) {
    throw new NiwsFaultError(
      'RequestFileUploadReport',
      `the load report is of batch ${begin[1]}, not ${batchName}`,
    );
  }
  const result = (begin[2] ?? '').toUpperCase();
  if (result === 'SUCCESSFUL') return { outcome: 'accepted' };
  if (result !== 'UNSUCCESSFUL' && result !== 'SUCCESSFUL WITH ERRORS') {
    throw new NiwsFaultError(
      'RequestFileUploadReport',
      `the load report's result ${result} is not Netcash's`,
    );
  }
  const lines = transactionLines(file);
  const general: string[] = [];
  const lineErrors: { lineRef: string; message: string }[] = [];
  for (const fields of records.slice(1, -1)) {
    if (fields[0] === '###ERROR') {
      general.push(maskedDigits(fields.slice(1).join(' ')));
      continue;
    }
    const lineNumber = /^line\s*:\s*(\d+)$/i.exec(fields[1] ?? '')?.[1];
    const message = maskedDigits(fields.slice(2).join(' ') || fields.slice(1).join(' '));
    const lineRef = lineNamed(
      lines,
      fields[0] ?? '',
      lineNumber === undefined ? undefined : Number(lineNumber),
    );
    if (lineRef) lineErrors.push({ lineRef, message });
    else general.push(`${maskedDigits(fields.slice(0, 2).join(' '))}: ${message}`);
  }
  const partly = result === 'SUCCESSFUL WITH ERRORS';
  const what = partly
    ? 'Netcash loaded only part of the file (SUCCESSFUL WITH ERRORS: NetConnector’s "Ignore errors" is on); delete the batch in Netcash’s portal before anyone authorises it'
    : 'Netcash did not load the file (UNSUCCESSFUL)';
  return { outcome: 'rejected', message: [what, ...general].join('; '), lineErrors };
}

/** The batch name of the uploaded file's header (H record, field 5), when there is a file. */
function batchNameOfFile(file: string): string | undefined {
  const header = file.split(/\r?\n/, 1)[0]?.split('\t');
  return header?.[0] === 'H' ? header[4] : undefined;
}
