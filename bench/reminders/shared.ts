/** What the reminder benchmark's parent and its measured processes share: the days, instants and words. */

/** The day of the reminder pass, and the instants the population is made at and the pass runs at (UTC account). */
export const REMIND_DATE = '2026-03-31';
export const SEED_AT = `${REMIND_DATE}T08:00:00.000Z`;
export const REMIND_AT = `${REMIND_DATE}T09:00:00.000Z`;
/** The second pass of the same day: it must send nothing. */
export const AGAIN_AT = `${REMIND_DATE}T15:00:00.000Z`;
/** The floor's e-mails are queued at this instant, apart from the reminders' own. */
export const FLOOR_AT = `${REMIND_DATE}T20:00:00.000Z`;

/** The origin of the reminders' pay links (the bill run's PUBLIC_URL): each e-mail carries one, signed. */
export const PUBLIC_URL = 'https://billing.example.com';
export const SELLER_NAME = 'Bench Reminders Ltd';
export const PAYMENT_INSTRUCTIONS = 'Pay into FNB 62000000001 with the invoice number as the reference';
