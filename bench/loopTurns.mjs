// How long the server's event loop turns: loaded into the server with
//   BENCH_SERVER_NODE_FLAGS="--import $PWD/bench/loopTurns.mjs" BENCH_LOOP_TURNS_FILE=/tmp/turns.log npm run bench:usage
// it writes a line `<epoch ms> <gap ms>` for every gap over 15 ms between two runs of a 2 ms timer (a timer runs
// once a turn, so a gap is a turn's length) and, for every GET /v1/customers/{id}, `get <epoch ms> <ms answering
// it>`: what another account's read waited is what its client measured minus that. docs/benchmarks.md, "Usage".
import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setInterval } from 'node:timers';

const file = process.env.BENCH_LOOP_TURNS_FILE;
if (file) {
  const lines = [];
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    if (now - last > 15) lines.push(`${Date.now()} ${(now - last).toFixed(1)}`);
    last = now;
  }, 2).unref();
  const emit = http.Server.prototype.emit;
  http.Server.prototype.emit = function (event, request, response) {
    if (event === 'request' && request.method === 'GET' && request.url.startsWith('/v1/customers/')) {
      const started = performance.now();
      response.on('finish', () =>
        lines.push(`get ${Date.now()} ${(performance.now() - started).toFixed(1)}`),
      );
    }
    return emit.apply(this, arguments);
  };
  const write = () => fs.writeFileSync(file, lines.join('\n') + '\n');
  setInterval(write, 1000).unref();
  process.on('exit', write);
}
