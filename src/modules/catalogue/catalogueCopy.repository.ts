import type { Db } from '../../storage/database.ts';
import { copyAccountRows } from '../../storage/accountRows.ts';
import type { CopiedRow } from '../../storage/accountRows.ts';
import { catalogueChanged } from './catalogueRevision.repository.ts';

/** Old id → new id of what a catalogue's copy made, for the modules whose rows name them. */
export interface CatalogueCopy {
  /** The currencies the new account has enabled now, its own default among them. */
  currencies: number;
  taxSettings: ReadonlyMap<number, number>;
  billableMetrics: ReadonlyMap<number, number>;
  packageGroups: ReadonlyMap<number, number>;
  packages: ReadonlyMap<number, number>;
  components: ReadonlyMap<number, number>;
  packageRateTerms: ReadonlyMap<number, number>;
}

/**
 * Copies an account's price list to another, new account (docs/going-live.md, "Making the live account"): its
 * currencies, tax settings with their rules and dated rates, billable metrics, package groups, packages with their versions, rates
 * and terms, and components with their versions, currencies and brackets, each pointing at the copies of what it
 * named. Archived and inactive rows are copied as they are, so that what a test account retired stays retired.
 */
export async function copyCatalogue(
  db: Db,
  fromAccountId: number,
  to: { accountId: number; now: string },
): Promise<CatalogueCopy> {
  const from = { accountId: fromAccountId };
  const held = await db
    .selectFrom('account_currencies')
    .select('currency_code')
    .where('account_id', '=', to.accountId)
    .execute();
  const already = new Set(held.map((row) => row.currency_code));
  let currencies = 0;
  const newCurrency = (row: CopiedRow) => {
    if (already.has(String(row.currency_code))) return false;
    currencies += 1;
    return true;
  };
  await copyAccountRows(db, 'account_currencies', from, to, { hasId: false, only: newCurrency });
  const taxSettings = await copyAccountRows(db, 'tax_settings', from, to);
  const taxRules = await copyAccountRows(db, 'tax_rules', from, to, {
    references: { tax_setting_id: taxSettings },
  });
  await copyAccountRows(db, 'tax_rule_rates', from, to, {
    references: { tax_setting_id: taxSettings, tax_rule_id: taxRules },
  });
  const billableMetrics = await copyAccountRows(db, 'billable_metrics', from, to);
  const packageGroups = await copyAccountRows(db, 'package_groups', from, to);
  const packages = await copyAccountRows(db, 'packages', from, to, {
    references: { package_group_id: packageGroups },
  });
  const packageVersions = await copyAccountRows(db, 'package_versions', from, to, {
    references: { package_id: packages },
  });
  const rates = await copyAccountRows(db, 'package_version_rates', from, to, {
    references: { package_version_id: packageVersions },
  });
  const packageRateTerms = await copyAccountRows(db, 'package_rate_terms', from, to, {
    references: { package_rate_id: rates },
  });
  const components = await copyAccountRows(db, 'components', from, to, {
    references: { package_group_id: packageGroups, metric_id: billableMetrics },
  });
  const componentVersions = await copyAccountRows(db, 'component_versions', from, to, {
    references: { component_id: components },
  });
  const versionCurrencies = await copyAccountRows(db, 'component_version_currencies', from, to, {
    references: { component_version_id: componentVersions },
  });
  await copyAccountRows(db, 'component_brackets', from, to, {
    references: { component_version_currency_id: versionCurrencies },
  });
  // Pages of the catalogue a process keeps are keyed by the revision (docs/architecture.md, "Catalogue pages kept
  // in the process").
  await catalogueChanged(db, to.accountId);
  return {
    currencies: already.size + currencies,
    taxSettings,
    billableMetrics,
    packageGroups,
    packages,
    components,
    packageRateTerms,
  };
}
