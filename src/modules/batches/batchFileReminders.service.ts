import { today, withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { isBusinessDay, lastSubmitDate } from '../../core/bankingDays.ts';
import { minorToDecimalText } from '../../core/money.ts';
import { queueStaffMail } from '../collections/index.ts';
import type { MessageBlock } from '../mail/index.ts';
import { getGateway, takesBatchFiles } from '../gateways/index.ts';
import * as repo from './batch.repository.ts';
import type { BatchRecord } from './batch.ts';
import { fileReminderDue } from './fileReminders.ts';
import type { FileReminder } from './fileReminders.ts';

/**
 * A netcash gateway without the web service (`uploadThroughWebService: false`) leaves a built batch's file to a
 * person: download it, upload it in Netcash's portal, authorise it. Nothing else tells them, so the run does, each
 * business day until the file is downloaded or its last safe day has passed, and once more when the cut-off was
 * missed (fileReminders.ts; docs/gateways/netcash.md, "Without the web service"). The words name commands a person
 * types (`billing batch …`, docs/operations.md, "Batches by hand"), not API calls.
 */

/** The run's step: every netcash batch whose file waits to be taken to Netcash, told once a business day. */
export async function remindFilesWaiting(ctx: ServiceContext): Promise<void> {
  const on = today(ctx);
  if (!isBusinessDay('debit_order', on)) return;
  for (const batch of await repo.listBatchesInStates(ctx.db, ctx.account.id, ['submitted'])) {
    if (!batch.hasFile || batch.fileDownloadedAt !== null || batch.uploadToken !== null) continue;
    if (batch.rail !== 'debit_order' || !fileReminderDue(batch.actionDate, on, batch.fileRemindedOn))
      continue;
    try {
      const gateway = await getGateway(ctx, batch.gatewayId);
      if (gateway.type !== 'netcash' || (await takesBatchFiles(ctx, gateway))) continue;
      await remind(ctx, batch);
    } catch (error) {
      ctx.log.error({ err: error, batchId: batch.id }, 'telling the staff of a waiting file failed');
    }
  }
}

/** The notice due today, under the batch's lock, once: the day it was sent is kept on the batch. */
async function remind(ctx: ServiceContext, read: BatchRecord): Promise<void> {
  const mailed = await withTransaction(ctx, async (tctx) => {
    const batch = await repo.lockBatch(tctx.db, tctx.account.id, read.id);
    const on = today(tctx);
    if (batch?.state !== 'submitted' || batch.fileDownloadedAt !== null) return false;
    const due = fileReminderDue(batch.actionDate, on, batch.fileRemindedOn);
    if (!due) return false;
    await repo.updateBatch(tctx.db, tctx.account.id, batch.id, { fileRemindedOn: on });
    const figures = (await repo.figuresOfBatches(tctx.db, tctx.account.id, [batch.id])).get(batch.id);
    const total = `${batch.currencyCode} ${minorToDecimalText(figures?.totalMinor ?? 0, batch.currencyCode)}`;
    const what = `Batch ${batch.token} holds ${figures?.lines ?? 0} debit order(s) for ${total}, to be collected on ${batch.actionDate}.`;
    return queueStaffMail(tctx, reminderOf(tctx.account.id, batch, due, what));
  });
  if (mailed) ctx.mailQueued();
}

/** The e-mail of a waiting file: what is at stake, by when, and the commands that send it. */
function reminderOf(
  accountId: number,
  batch: BatchRecord,
  due: FileReminder,
  what: string,
): { subject: string; blocks: MessageBlock[] } {
  const lastSafe = lastSubmitDate('debit_order', batch.actionDate);
  const fileName = `${batch.providerRef}.txt`;
  if (due === 'missed') {
    return {
      subject: `Batch ${batch.token} missed Netcash's cut-off: cancel it and collect again`,
      blocks: [
        {
          paragraph: `${what} Its file never left for Netcash, and Netcash's cut-off for that date was ${lastSafe}: nothing will be collected.`,
        },
        {
          paragraph: `Cancel the batch, so that its invoices owe the money again and the next run collects them on a later date: billing batch cancel --account ${accountId} --batch ${batch.token}`,
          strong: true,
        },
      ],
    };
  }
  const when = due === 'last_day' ? `today (${lastSafe}), the last day` : `by ${lastSafe}`;
  return {
    subject: `Send batch ${batch.token} to Netcash ${due === 'last_day' ? 'today' : `by ${lastSafe}`}: debit orders for ${batch.actionDate}`,
    blocks: [
      {
        paragraph: `${what} Its file has not been downloaded, so Netcash does not have it. Netcash needs it ${when}: two business days before the collection date.`,
      },
      {
        figures: [
          [
            '1. Download the file',
            `billing batch file --account ${accountId} --batch ${batch.token} (writes ${fileName})`,
          ],
          [
            '2. Send it to Netcash',
            `sign in to Netcash, open Debit orders and upload ${fileName} as a batch`,
          ],
          ['3. Authorise it', 'in Netcash, authorise the batch: Netcash collects nothing until then'],
        ],
      },
      {
        paragraph: `You will be reminded each business day until the file is downloaded. The service can send such files to Netcash by itself: give gateway ${batch.gatewayId} its Account service key and leave out "uploadThroughWebService": false (billing gateway settings ${batch.gatewayId} --settings '<json>').`,
      },
    ],
  };
}
