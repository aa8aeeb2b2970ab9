import type { FieldProblem } from '../../../errors.ts';
import { isNetcashKey } from './netcashKey.ts';
import { DEBICHECK_TEMPLATE_ID } from './netcashDebiCheck.ts';

/**
 * A netcash gateway's settings (docs/gateways/netcash.md, "Keys and settings"): `serviceKey`, the debit-order
 * service key from Netcash's NetConnector, required; `softwareVendorKey`, Netcash's default unless the business
 * runs the service as one of Netcash's ISVs; `debiCheckMandateTemplateId`, the DebiCheck
 * mandate template that real-time authentications name, only for DebiCheck mandates. Checked when the gateway is added, each problem named by its path.
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
  const vendor = given['softwareVendorKey'];
  if (vendor !== undefined && (typeof vendor !== 'string' || !isNetcashKey(vendor))) {
    problems.push({ field: 'Settings.softwareVendorKey', message: 'must be a GUID' });
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
