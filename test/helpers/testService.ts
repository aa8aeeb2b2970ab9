import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { startTestService } from './service.ts';
import type { StartOptions, TestAccount, TestService } from './service.ts';
import { startSmtpReceiver } from './smtp.ts';

/** The SMTP receiver of a file's service: where its mail arrives (`messages`). */
export type SmtpReceiver = Awaited<ReturnType<typeof startSmtpReceiver>>;

export interface FileServiceOptions extends StartOptions {
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
 * (`const { smtp, other } = t`); reading one before the beforeAll, or one that was not asked for, throws.
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
 * `options` may be a function, called in that beforeAll: for what is known only once the hooks registered before
 * this call have run (a provider simulator's `fetch`, another service's SMTP receiver). Options given as an object
 * are read when the file loads, so a `let` set by a beforeAll would be read unset. Called twice, it starts two
 * services, in the order of the calls; a service for one test is `startFresh`.
 */
export function useTestService(options: FileServiceOptions | (() => FileServiceOptions) = {}): FileService {
  const smtp = filledLater<SmtpReceiver>('useTestService({ smtp: true })');
  const other = filledLater<TestAccount>('useTestService({ secondAccount: true })');
  const handle = {} as FileService;
  Object.defineProperty(handle, 'smtp', { value: smtp.handle, enumerable: false });
  Object.defineProperty(handle, 'other', { value: other.handle, enumerable: false });
  let receiver: SmtpReceiver | undefined;
  let service: TestService | undefined;
  beforeAll(async () => {
    const {
      smtp: wantsSmtp,
      secondAccount,
      seed,
      ...start
    } = typeof options === 'function' ? options() : options;
    if (wantsSmtp) {
      receiver = await startSmtpReceiver();
      smtp.fill(receiver);
    }
    service = await startTestService({ ...start, ...(receiver ? { smtpUrl: receiver.url } : {}) });
    Object.assign(handle, service);
    if (secondAccount) {
      other.fill(await service.newAccount(...(typeof secondAccount === 'string' ? [secondAccount] : [])));
    }
    await seed?.(handle);
  });
  afterAll(async () => {
    await service?.close();
    await receiver?.close();
  });
  return handle;
}

/**
 * Starts a service for the test that calls it, and closes it once that test has finished: after the test's own
 * `finally` blocks and its afterEach hooks, and before the onTestFinished hooks the test registered before this call
 * (vitest runs those last first). For a test whose subject needs a service of its own: one per setting, one it takes
 * down, one beside the file's service.
 */
export async function startFresh(options: StartOptions = {}): Promise<TestService> {
  const service = await startTestService(options);
  onTestFinished(() => service.close());
  return service;
}

/** An object a beforeAll fills in; reading it before then, or when it was never asked for, says how to ask. */
function filledLater<T extends object>(askWith: string): { handle: T; fill(value: T): void } {
  const target = {} as T;
  let filled = false;
  return {
    handle: new Proxy(target, {
      get(object, key, receiver) {
        if (!filled && typeof key === 'string') {
          throw new Error(
            `this file's service has no ${key} (yet): start it with ${askWith}, and read it in a hook`,
          );
        }
        return Reflect.get(object, key, receiver);
      },
    }),
    fill(value) {
      Object.assign(target, value);
      filled = true;
    },
  };
}
