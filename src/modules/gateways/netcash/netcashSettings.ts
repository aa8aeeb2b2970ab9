import type { FieldProblem } from '../../../errors.ts';
import { isNetcashKey } from './netcashKey.ts';

/**
 * A netcash gateway's settings (docs/gateways/netcash.md, "Keys and settings"): `serviceKey`, the debit-order
 * service key from Netcash's NetConnector, required; `softwareVendorKey`, Netcash's default unless the business
 * runs the service as one of Netcash's ISVs; `riskServiceKey`, the risk reports service key Netcash's account
 * verification (AVS) takes, without which bank accounts are checked offline only. Checked when the gateway is added,
 * each problem named by its path.
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
  return problems;
}
