/** Reports over the other modules' records (docs/tax.md, "The VAT report"). Routes: reports.routes.ts. */
export type { VatBasis, VatReport } from './vatReport.service.ts';
export { vatReport, vatReportFromWire } from './vatReport.service.ts';
export type { CurrencyVatReport, ReportDocument, SupplyCategory } from './vatReport.ts';
export { vat201Boxes } from './vatReport.ts';
export { toVatReportDto, vatReportCsv, vatReportText } from './reports.serializer.ts';
