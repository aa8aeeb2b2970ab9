import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { Nullable, StringEnum, WireDate } from '../../http/schemas.ts';
import { BILLING_ANCHORS, PAUSE_CREDITS } from './subscriptionPause.ts';

/** The same example, however the schema's options are typed (a schema is a plain object with its Kind). */
const withExample = <T extends object>(schema: T, example: unknown): T => ({
  ...schema,
  examples: [example],
});

/** docs/subscriptions.md, "Pause and resume". */
const BillingAnchor = withExample(
  StringEnum(BILLING_ANCHORS, {
    description:
      'resume_day (default): a new cycle from the resume day, nothing prorated; unchanged: the old cycle kept, the ' +
      'resume day to its next boundary billed pro rata',
  }),
  'resume_day',
);

export const PauseBody = Type.Object(
  {
    PauseDate: Type.Optional(
      withExample(
        WireDate({
          description:
            'Default today; a later date schedules the pause. Under Credit none the pause starts where the billed ' +
            'period holding this date ends',
        }),
        '2026-05-01',
      ),
    ),
    ResumeDate: Type.Optional(
      Nullable(
        withExample(
          WireDate({ description: 'The day billing resumes; null or left out: paused until resumed' }),
          '2026-08-01',
        ),
      ),
    ),
    Credit: Type.Optional(
      withExample(
        StringEnum(PAUSE_CREDITS, {
          description:
            'none (default): the period already invoiced is served to its end; prorata: the pause starts on ' +
            'PauseDate and the unused days are credited, as a prorata cancel credits',
        }),
        'none',
      ),
    ),
    BillingAnchor: Type.Optional(BillingAnchor),
  },
  { additionalProperties: false },
);
export type PauseBody = Static<typeof PauseBody>;

export const ResumeBody = Type.Object(
  {
    ResumeDate: Type.Optional(
      withExample(
        WireDate({ description: 'Default today; a later date schedules the resume' }),
        '2026-08-01',
      ),
    ),
    BillingAnchor: Type.Optional(BillingAnchor),
    WaitForPayment: Type.Optional(
      withExample(
        Type.Boolean({
          description:
            'Stripe’s resume_on_payment_success: the resumption invoice is issued on the resume day, and the ' +
            'subscription stays Paused until it is paid (then resumes that day); unpaid on ResumePayByDate, the ' +
            'invoice is voided and the subscription stays paused until resumed. Default false',
        }),
        false,
      ),
    ),
  },
  { additionalProperties: false },
);
export type ResumeBody = Static<typeof ResumeBody>;

/** The subscription's pause, shown only once it has one. */
export const PauseFieldsOut = {
  PauseDate: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'Beyond the spec, shown once paused: the first day of its pause',
      examples: ['2026-05-01T00:00:00.000Z'],
    }),
  ),
  ResumeDate: Type.Optional(
    Nullable(
      Type.String({
        format: 'date-time',
        description: 'The day billing resumes; null: paused until resumed',
        examples: ['2026-08-01T00:00:00.000Z'],
      }),
    ),
  ),
  PauseCredit: Type.Optional(Nullable(Type.String({ description: 'none or prorata', examples: ['none'] }))),
  ResumeBillingAnchor: Type.Optional(
    Nullable(Type.String({ description: 'resume_day or unchanged', examples: ['resume_day'] })),
  ),
  ResumeWaitsForPayment: Type.Optional(
    Type.Boolean({
      description: 'Shown only for a resume with WaitForPayment: it waits for its invoice to be paid',
      examples: [true],
    }),
  ),
  ResumePayByDate: Type.Optional(
    Type.String({
      format: 'date-time',
      description: 'With WaitForPayment: the day the resumption invoice is voided if still unpaid',
      examples: ['2026-08-02T00:00:00.000Z'],
    }),
  ),
  ResumePaidDate: Type.Optional(
    Nullable(
      Type.String({
        format: 'date-time',
        description:
          'With WaitForPayment: the day the resumption invoice was paid and the subscription resumed',
        examples: ['2026-08-01T00:00:00.000Z'],
      }),
    ),
  ),
};
