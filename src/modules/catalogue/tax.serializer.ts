import type { TaxSetting, TaxSettingInput } from './tax.service.ts';
import type { TaxSettingBody, TaxSettingOut } from './tax.schemas.ts';

/** Perc is stored as an exact decimal of at most 6 places in [0, 1]; such a value is exact as a JSON number. */
export function toTaxSettingDto(setting: TaxSetting): TaxSettingOut {
  return {
    taxSettingID: setting.id,
    Name: setting.name,
    rules: setting.rules.map((rule) => ({
      taxRuleID: rule.id,
      Perc: Number(rule.perc),
      countryID: rule.countryId,
      countryStateID: rule.countryStateId,
      TaxNumber: rule.taxNumber,
    })),
  };
}

export function taxSettingInputFromWire(body: TaxSettingBody): TaxSettingInput {
  return {
    name: body.Name,
    rules: body.rules?.map((rule) => ({
      id: rule.taxRuleID,
      perc: rule.Perc,
      countryId: rule.countryID,
      countryStateId: rule.countryStateID,
      taxNumber: rule.TaxNumber,
    })),
  };
}
