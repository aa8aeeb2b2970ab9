import { withTransaction } from '../../context.ts';
import type { ServiceContext } from '../../context.ts';
import { queueStaffMail } from '../collections/index.ts';
import type { BatchRecord } from './batch.ts';

/**
 * A file Netcash holds that we no longer collect (docs/gateways/netcash.md, "Uploading through NIWS_NIF"): the
 * batch was cancelled after its upload, or changed while it was uploaded. Netcash's web service has no call that
 * withdraws an uploaded batch, so a person deletes it in Netcash's portal before anyone authorises it.
 */
export async function tellUploadToDelete(
  ctx: ServiceContext,
  batch: BatchRecord,
  batchName: string,
  why: 'cancelled' | 'changed',
): Promise<void> {
  const what =
    why === 'cancelled' ? 'was cancelled after its file was uploaded' : 'changed while its file was uploaded';
  const mailed = await withTransaction(ctx, (tctx) =>
    queueStaffMail(tctx, {
      subject: `Delete batch ${batchName} in Netcash: batch ${batch.token} ${why}`,
      blocks: [
        {
          paragraph: `Batch ${batch.token} (to be collected on ${batch.actionDate}) ${what}, so nothing of it is collected here; but Netcash has its file, as batch ${batchName}.`,
        },
        {
          paragraph: `Sign in to Netcash, open Debit orders and delete batch ${batchName}; do not authorise it. If it was authorised already, ask Netcash to stop it before ${batch.actionDate}.`,
          strong: true,
        },
      ],
    }),
  );
  if (mailed) ctx.mailQueued();
}
