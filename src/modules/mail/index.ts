export type { MailTransport, OutgoingMail, ReadableMail } from './mail.service.ts';
export { deliverDueMail, listMail, queueMail, smtpTransport } from './mail.service.ts';
export type { MailWorker } from './mail.worker.ts';
export { startMailWorker } from './mail.worker.ts';
