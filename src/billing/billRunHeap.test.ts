import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** Room to grow into above the 16 MB that loading tsx takes the young generation to. */
const MAX_SEMI_SPACE_MB = 64;

/**
 * Runs in a process of its own: the young generation's size and V8's flags are the process's, and this file's
 * worker goes on to run other files.
 */
function youngGenerationMb(startThread: boolean): { before: number; after: number } {
  const heapModule = fileURLToPath(new URL('./billRunHeap.ts', import.meta.url));
  const program = `
    import v8 from 'node:v8';
    import { Worker } from 'node:worker_threads';
    import { keepYoungGenerationSmall } from ${JSON.stringify(heapModule)};
    const youngMb = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space').space_size / 2 ** 20;
    // Garbage of which much survives a scavenge, as a bill run's does: what makes V8 grow the young generation.
    const churn = () => { let kept = []; for (let i = 0; i < 3e6; i++) { kept.push({ i }); if (kept.length > 200000) kept = []; } };
    keepYoungGenerationSmall({});
    churn();
    const before = youngMb();
    if (${startThread}) {
      const thread = new Worker('', { eval: true });
      await new Promise((resolve) => thread.once('online', resolve));
      await thread.terminate();
    }
    churn();
    console.log(JSON.stringify({ before, after: youngMb() }));
  `;
  const flags = [`--max-semi-space-size=${MAX_SEMI_SPACE_MB}`, '--import', 'tsx', '--input-type=module'];
  const output = execFileSync(process.execPath, [...flags, '-e', program], { encoding: 'utf8' });
  return JSON.parse(output) as { before: number; after: number };
}

describe('keepYoungGenerationSmall', () => {
  it('keeps the young generation at its size while much of the garbage survives scavenges', () => {
    const { before, after } = youngGenerationMb(false);
    expect(after).toBe(before);
  });

  it('keeps it there after a worker thread has started (each new isolate sets the growth factor back)', () => {
    const { before, after } = youngGenerationMb(true);
    expect(before).toBeLessThan(MAX_SEMI_SPACE_MB);
    expect(after).toBe(before);
  });
});
