import type { FieldProblem } from '../../../errors.ts';
import { isNetcashKey } from './netcashKey.ts';
import { DEBICHECK_TEMPLATE_ID } from './netcashDebiCheck.ts';

/**
 * A netcash gateway's settings (docs/gateways/netcash.md, "Keys and settings"): `serviceKey`, the debit-order
 * service key from Netcash's NetConnector, required; `softwareVendorKey`, Netcash's default unless the business
 * runs the service as one of Netcash's ISVs; `riskServiceKey`, the risk reports service key Netcash's account
 * verification (AVS) takes, without which bank accounts are checked offline only; `uploadThroughWebService`, whether
 * batches go to Netcash through its web service (the default) or by a person's download and upload;
 * `accountServiceKey`, the Account service key the statement is fetched with, required when batches go through the
 * web service; `debiCheckMandateTemplateId`, the DebiCheck mandate template that real-time authentications name,
 * only for DebiCheck mandates. Checked when the gateway is added, each problem named by its path.
 */
export function netcashSettingsProblems(settings: unknown): FieldProblem[] {
  const given =
    typeof settings === 'object' && settings !== null && !Array.isArray(settings)
      ? (settings as Record<string, unknown>)
      : {};
  const problems: FieldProblem[] = [];
  const key = given['serviceKey'];
  if (key === undefined || key === null || key === '') {
    problems.push({ field: 'Settings.serviceKey', message: 'is required: the debit-order service key' });
  } else if (typeof key !== 'string' || !isNetcashKey(key)) {
    problems.push({ field: 'Settings.serviceKey', message: 'must be a GUID, as NetConnector shows it' });
  }
  for (const optional of ['softwareVendorKey', 'riskServiceKey']) {
    const value = given[optional];
    if (value !== undefined && (typeof value !== 'string' || !isNetcashKey(value))) {
      problems.push({ field: `Settings.${optional}`, message: 'must be a GUID' });
    }
  }
  const upload = given['uploadThroughWebService'];
  if (upload !== undefined && typeof upload !== 'boolean') {
    problems.push({ field: 'Settings.uploadThroughWebService', message: 'must be true or false' });
  }
  const account = given['accountServiceKey'];
  if (account === undefined || account === null || account === '') {
    if (upload !== false) {
      problems.push({
        field: 'Settings.accountServiceKey',
        message:
          'is required to fetch the statement when batches go through the web service (or set uploadThroughWebService to false)',
      });
    }
  } else if (typeof account !== 'string' || !isNetcashKey(account)) {
    problems.push({
      field: 'Settings.accountServiceKey',
      message: 'must be a GUID, as NetConnector shows it',
    });
  }
  // DebiCheck's real-time authentications name the account's mandate template (docs/gateways/netcash.md, "DebiCheck").
  const template = given['debiCheckMandateTemplateId'];
  if (template !== undefined && (typeof template !== 'string' || !DEBICHECK_TEMPLATE_ID.test(template))) {
    problems.push({
      field: 'Settings.debiCheckMandateTemplateId',
      message: 'must be a DebiCheck mandate template id as Netcash shows it: NCDCT and 9 digits',
    });
  }
  return problems;
}

/** Whether the gateway's batches go to Netcash through its web service: unless its settings say false. */
export const uploadsThroughWebService = (settings: Readonly<Record<string, unknown>>): boolean =>
  settings['uploadThroughWebService'] !== false;
