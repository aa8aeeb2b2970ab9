import { startOfDate } from '../../core/calendar.ts';
import type { TaxSetting, TaxSettingInput } from './tax.service.ts';
import type { TaxRuleRate } from './tax.repository.ts';
import type { ScheduledTaxRateInput } from './taxRate.service.ts';
import type { TaxRateBody, TaxSettingBody, TaxSettingOut } from './tax.schemas.ts';

/** Perc is stored as an exact decimal of at most 6 places in [0, 1]; such a value is exact as a JSON number. */
export function toTaxRateDto(rate: TaxRuleRate, timeZone: string) {
  return {
    taxRateID: rate.id,
    taxRuleID: rate.taxRuleId,
    Perc: Number(rate.perc),
    EffectiveFrom: startOfDate(rate.effectiveFrom, timeZone),
  };
}

export function toTaxSettingDto(setting: TaxSetting, timeZone: string): TaxSettingOut {
  return {
    taxSettingID: setting.id,
    Name: setting.name,
    rules: setting.rules.map((rule) => ({
      taxRuleID: rule.id,
      Perc: Number(rule.perc),
      countryID: rule.countryId,
      countryStateID: rule.countryStateId,
      TaxNumber: rule.taxNumber,
      ScheduledRates: rule.scheduledRates.map((rate) => toTaxRateDto(rate, timeZone)),
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

export function scheduledTaxRateInputFromWire(body: TaxRateBody): ScheduledTaxRateInput {
  return { taxRuleId: body.taxRuleID, perc: body.Perc, effectiveFrom: body.EffectiveFrom };
}
