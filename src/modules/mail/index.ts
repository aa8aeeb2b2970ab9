export type {
  AttachmentRef,
  MailSender,
  MailTransport,
  OutgoingMail,
  ReadableMail,
  RenderDeps,
  RenderedAttachment,
  SendableMail,
} from './mail.service.ts';
export { deliverDueMail, listMail, queueMail, queueMails, smtpTransport } from './mail.service.ts';
export type { AttachmentRenderer, MailPorts } from './ports.ts';
export type { MailWorker } from './mail.worker.ts';
export { startMailWorker } from './mail.worker.ts';
export type { MessageBlock, MessageContent } from './messageBody.ts';
export { messageBody } from './messageBody.ts';
