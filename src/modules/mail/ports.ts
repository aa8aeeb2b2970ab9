import type { RenderDeps, RenderedAttachment } from './mail.service.ts';

/** Renders the attachment of a message of the account; throws when it cannot (the delivery is then retried). */
export type AttachmentRenderer = (
  deps: RenderDeps,
  mail: { accountId: number; ref: string },
) => Promise<RenderedAttachment>;

/**
 * What the outbox asks of the modules that queue attachments (`ports.mail`, filled by src/modulePorts.ts): their
 * renderer by attachment kind (`invoice_pdf`, ...). The outbox stores a reference only, and the document is made
 * when its message is sent, by the mail worker, away from the transaction that queued it.
 */
export interface MailPorts {
  attachments: Readonly<Record<string, AttachmentRenderer>>;
}

declare module '../../context.ts' {
  interface Ports {
    mail: MailPorts;
  }
}
