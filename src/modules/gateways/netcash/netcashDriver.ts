import type { DriverDeps, DriverModule, GatewayDriver } from '../gatewayContract.ts';
import { netcashDebiCheckOperations } from './netcashDebiCheck.ts';
import { niwsClient } from './niwsClient.ts';
import { netcashAvs } from './netcashAvs.ts';
import { netcashSettingsProblems } from './netcashSettings.ts';
import { netcashUploads } from './netcashUploads.ts';

/**
 * The netcash gateway's driver (docs/gateways/netcash.md): Netcash's web services reached through one NIWS client,
 * each group of operations in a file of its own (batches uploaded and their load reports, account verification,
 * DebiCheck mandates). The debit-order file itself is built by the batches module, as for a bankfile gateway.
 */
export const netcashDriverModule: DriverModule = {
  create: netcashDriver,
  settingsProblems: netcashSettingsProblems,
  verifiesNewBankAccounts: true,
};

function netcashDriver(deps: DriverDeps): GatewayDriver {
  const niws = niwsClient(deps.fetch);
  return {
    ...netcashAvs(niws, deps.settings),
    ...netcashUploads(niws, deps.settings),
    // DebiCheck mandates: authenticated, traced, amended and cancelled (netcashDebiCheck.ts).
    ...netcashDebiCheckOperations(niws, deps.settings),
  };
}
