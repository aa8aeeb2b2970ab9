/**
 * Loaded with `node --import` into the bill run's measured process, the compiled `billing run` (dist/bundle/), which
 * knows nothing of the benchmark: it samples the process's memory every 100 ms and, as the process exits, writes what
 * it saw to the file BENCH_MEMORY_PROBE_FILE names, as JSON (bench/billRun/child.ts reads it). Plain JavaScript, so
 * that the process loads no TypeScript loader; it loads nothing but Node's own modules.
 *
 * BENCH_MEMORY_TRACE=1 (with --expose-gc): the memory after a full collection at exit, and with
 * BENCH_HEAP_SNAPSHOT_DIR a heap snapshot of what is left then.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval } from 'node:timers';
import { writeHeapSnapshot } from 'node:v8';

const MB = 1024 * 1024;
const file = process.env.BENCH_MEMORY_PROBE_FILE;

function memoryNow() {
  const m = process.memoryUsage();
  return {
    rssMb: m.rss / MB,
    heapUsedMb: m.heapUsed / MB,
    heapTotalMb: m.heapTotal / MB,
    externalMb: m.external / MB,
    arrayBuffersMb: m.arrayBuffers / MB,
  };
}

/** VmHWM (Linux): the peak resident set, which a 20 ms sampler can miss. */
function vmHwmMb() {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync('/proc/self/status', 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const sampledPeak = memoryNow();
function sample() {
  const now = memoryNow();
  for (const key of Object.keys(now)) sampledPeak[key] = Math.max(sampledPeak[key], now[key]);
}

if (file) {
  // Unreferenced: the process ends when the command is done, as it would without the probe.
  setInterval(sample, 100).unref();
  process.on('exit', () => {
    sample();
    // Read before the full collection below, which takes memory of its own.
    const peakRssMb = vmHwmMb() ?? sampledPeak.rssMb;
    const atExit = memoryNow();
    const cpu = process.cpuUsage();
    let afterFullGc;
    let heapSnapshot;
    if (process.env.BENCH_MEMORY_TRACE === '1' && typeof globalThis.gc === 'function') {
      globalThis.gc();
      afterFullGc = memoryNow();
      if (process.env.BENCH_HEAP_SNAPSHOT_DIR) {
        heapSnapshot = writeHeapSnapshot(
          join(process.env.BENCH_HEAP_SNAPSHOT_DIR, `billrun-${process.pid}.heapsnapshot`),
        );
      }
    }
    writeFileSync(
      file,
      JSON.stringify({
        peakRssMb,
        sampledPeak,
        atExit,
        afterFullGc,
        heapSnapshot,
        // Since the process started: loading the modules included.
        seconds: performance.now() / 1000,
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
      }),
    );
  });
}
