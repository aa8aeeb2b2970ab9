import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StdoutDestination, createLogger } from './logger.ts';

/**
 * The log destination writing into a real pipe (a FIFO) whose reader we pace: while the reader does not read, the
 * pipe fills and the destination's writes complete only later, as they do when a log collector stalls.
 */
interface SlowPipe {
  destination: StdoutDestination;
  /** Starts reading; resolves with everything read once `done` says it is complete, or after 10 s with what came. */
  readUntil(done: (text: string) => boolean): Promise<string>;
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function slowPipe(writerBlocks: boolean): SlowPipe {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'log-pipe-'));
  const fifo = path.join(directory, 'out');
  execFileSync('mkfifo', [fifo]);
  // The reader first, so that opening the writer does not wait for one.
  const readFd = fs.openSync(fifo, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writeFd = fs.openSync(fifo, fs.constants.O_WRONLY | (writerBlocks ? 0 : fs.constants.O_NONBLOCK));
  const reader = new net.Socket({ fd: readFd, readable: true, writable: false });
  reader.pause();
  let text = '';
  cleanups.push(() => {
    reader.destroy();
    fs.closeSync(writeFd);
    fs.rmSync(directory, { recursive: true, force: true });
  });
  return {
    destination: new StdoutDestination(writeFd),
    readUntil: (done) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve(text), 10_000);
        reader.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          if (done(text)) {
            clearTimeout(timer);
            resolve(text);
          }
        });
        reader.resume();
      }),
  };
}

const messagesIn = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((line) => (JSON.parse(line) as { msg: string }).msg);

/** Resolves once `destination` has written everything it holds (or fails the test after 10 s). */
async function drained(destination: StdoutDestination): Promise<void> {
  await destination.flush(10_000);
  expect(destination.unwrittenBytes).toBe(0);
}

describe.each([
  ['blocking', true],
  ['non-blocking (EAGAIN)', false],
])('the log destination on a %s pipe whose reader is slow', (_name, writerBlocks) => {
  it('writes every line logged while earlier writes are still under way, in order, and counts down to 0', async () => {
    const { destination, readUntil } = slowPipe(writerBlocks);
    const logger = createLogger('info', destination);
    const padding = 'x'.repeat(200);
    const expected: string[] = [];
    // Far more than the pipe holds (64 KiB), logged in bursts while the first writes wait on the reader.
    for (let burst = 0; burst < 20; burst++) {
      for (let i = 0; i < 100; i++) {
        const message = `line ${burst * 100 + i} ${padding}`;
        expected.push(message);
        logger.info(message);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(destination.unwrittenBytes).toBeGreaterThan(64 * 1024);
    const last = expected.at(-1)!;
    const text = await readUntil((soFar) => soFar.includes(`"msg":"${last}"`));
    expect(messagesIn(text)).toEqual(expected);
    await drained(destination);
  });

  it('drops lines only past the cap, keeps counting exactly, and logs again once the reader catches up', async () => {
    const { destination, readUntil } = slowPipe(writerBlocks);
    const logger = createLogger('info', destination);
    const padding = 'y'.repeat(1000);
    const logged: string[] = [];
    // About 10 MiB against the 8 MiB cap.
    for (let i = 0; i < 10_000; i++) {
      const message = `flood ${i} ${padding}`;
      logged.push(message);
      logger.info(message);
    }
    const held = destination.unwrittenBytes;
    expect(held).toBeLessThanOrEqual(8 * 1024 * 1024);
    expect(held).toBeGreaterThan(7 * 1024 * 1024);
    const read = readUntil((soFar) => soFar.includes('"msg":"after the flood"'));
    // Started while the reader caught up: it must arrive, after what the cap let in.
    const afterwards = setInterval(() => {
      if (destination.unwrittenBytes === 0) {
        clearInterval(afterwards);
        logger.info('after the flood');
      }
    }, 5);
    const messages = messagesIn(await read);
    expect(messages.at(-1)).toBe('after the flood');
    const flood = messages.slice(0, -1);
    // What was written is the flood's beginning, whole lines in order, as much as the cap held.
    expect(flood).toEqual(logged.slice(0, flood.length));
    expect(flood.length).toBeGreaterThan(7000);
    await drained(destination);
  });
});
