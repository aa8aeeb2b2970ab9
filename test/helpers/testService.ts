import { afterAll, beforeAll } from 'vitest';
import { startTestService } from './service.ts';
import type { StartOptions, TestAccount, TestService } from './service.ts';
import { startSmtpReceiver } from './smtp.ts';

/** The SMTP receiver of a file's service: where its mail arrives (`messages`). */
export type SmtpReceiver = Awaited<ReturnType<typeof startSmtpReceiver>>;

export interface FileServiceOptions extends Omit<StartOptions, 'smtpUrl'> {
  /** Start a real SMTP receiver first and send the service's mail to it (`smtp` of the handle). */
  smtp?: boolean;
  /** Make a second account of the service beside the test account (`other` of the handle), named so if a string. */
  secondAccount?: boolean | string;
  /** Runs once the service (and what else was asked for) has started, before the file's own beforeAll hooks. */
  seed?: (t: FileService) => Promise<void> | void;
}

/**
 * The service of one test file: the TestService itself once the file's beforeAll has run, and `smtp` and `other`
 * when asked for. `smtp` and `other` are the same objects from the start, so a file may take them apart at once
 * (`const { smtp, other } = t`); reading one that was not asked for throws.
 */
export interface FileService extends TestService {
  smtp: SmtpReceiver;
  other: TestAccount;
}

/**
 * Starts a service for the test file that calls it (at the top level or in a describe) before its tests, and closes
 * it, and its SMTP receiver, after them: fastify/demo's `build(t)`. It starts nothing the options do not ask for, so
 * a file pays for what it used to start by hand and no more. The handle is filled in by the beforeAll this registers;
 * hooks the file registers after the call run after it (and their afterAll before the service closes).
 *
 * A file that starts two services, restarts one, or starts one inside a test calls startTestService itself.
 */
export function useTestService(options: FileServiceOptions = {}): FileService {
  const { smtp: wantsSmtp, secondAccount, seed, ...start } = options;
  const smtp = filledLater<SmtpReceiver>(wantsSmtp ? undefined : 'useTestService({ smtp: true })');
  const other = filledLater<TestAccount>(
    secondAccount ? undefined : 'useTestService({ secondAccount: true })',
  );
  const handle = {} as FileService;
  Object.defineProperty(handle, 'smtp', { value: smtp, enumerable: false });
  Object.defineProperty(handle, 'other', { value: other, enumerable: false });
  let receiver: Awaited<ReturnType<typeof startSmtpReceiver>> | undefined;
  let service: TestService | undefined;
  beforeAll(async () => {
    if (wantsSmtp) {
      receiver = await startSmtpReceiver();
      Object.assign(smtp, receiver);
    }
    service = await startTestService({ ...start, ...(receiver ? { smtpUrl: receiver.url } : {}) });
    Object.assign(handle, service);
    if (secondAccount) {
      Object.assign(
        other,
        await service.newAccount(...(typeof secondAccount === 'string' ? [secondAccount] : [])),
      );
    }
    await seed?.(handle);
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });
  return handle;
}

/** An object filled in by a beforeAll; if `askWith` is given it was not asked for, and reading it says how to ask. */
function filledLater<T extends object>(askWith: string | undefined): T {
  if (askWith === undefined) return {} as T;
  return new Proxy({} as T, {
    get(_target, key) {
      throw new Error(`this file's service has no ${String(key)}: start it with ${askWith}`);
    },
  });
}
