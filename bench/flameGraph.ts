/**
 * A flame graph (SVG) of a V8 CPU profile (BENCH_CPU_PROFILE_DIR), of the whole profile or of a stretch of it: the
 * HTTP benchmarks' server profile covers every route it was measured on, one after another, so the stretch of one
 * route is chosen by its seconds before the profile's end (the last route measured ends it).
 *
 *   npx tsx bench/flameGraph.ts <file.cpuprofile> <out.svg> [--from S] [--to S] [--title TEXT]
 *
 * --from S and --to S: the stretch from S seconds before the profile's end to S seconds before it (default: all).
 * Each frame is as wide as the samples under it; time the thread was idle is left out, so the width is the CPU
 * time. Hovering a frame shows its function, file and share (the SVG's <title>).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parentsOf, placeOf, readProfile } from './cpuProfile.ts';
import type { Profile, ProfileNode } from './cpuProfile.ts';

/** One frame of the graph: the calls along one path merged by name, with the time sampled under them. */
interface Frame {
  name: string;
  time: number;
  children: Map<string, Frame>;
}

const WIDTH = 1200;
const ROW = 16;
const FONT = 11;
/** Frames narrower than this many pixels are left out (their time stays in their parent's width). */
const MIN_PX = 0.5;
/** Frames that are not work of the process. */
const LEFT_OUT = new Set(['(idle)', '(root)']);

/** A frame's name: its function, and where it is (the service's file from src/, a package, or Node's own). */
function frameName({ functionName, url, lineNumber }: ProfileNode['callFrame']): string {
  const fn = functionName || '(anonymous)';
  if (url === '') return fn;
  const where = placeOf(url);
  return `${fn} ${where}:${lineNumber + 1}`;
}

/** The tree of frames of the samples taken within [from, to] (microseconds of the profile's clock). */
function framesOf(profile: Profile, from: number, to: number): Frame {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = parentsOf(profile);
  const root: Frame = { name: 'all', time: 0, children: new Map() };
  let at = profile.startTime;
  profile.samples.forEach((sample, index) => {
    at += profile.timeDeltas[index]!;
    const weight = profile.timeDeltas[index + 1] ?? 0;
    if (at < from || at > to || weight <= 0) return;
    const stack: string[] = [];
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
      const name = frameName(byId.get(id)!.callFrame);
      if (!LEFT_OUT.has(name)) stack.push(name);
    }
    if (stack.length === 0 && frameName(byId.get(sample)!.callFrame) === '(idle)') return;
    root.time += weight;
    let frame = root;
    for (const name of stack.reverse()) {
      let child = frame.children.get(name);
      if (!child) frame.children.set(name, (child = { name, time: 0, children: new Map() }));
      child.time += weight;
      frame = child;
    }
  });
  return root;
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);

/** A warm colour of the name's own, so the same function has the same colour in two graphs. */
function colourOf(name: string): string {
  let hash = 0;
  for (const c of name.split(' ')[0]!) hash = (hash * 31 + c.charCodeAt(0)) >>> 0;
  return `rgb(${205 + (hash % 50)},${80 + ((hash >> 8) % 130)},${40 + ((hash >> 16) % 40)})`;
}

function depthOf(frame: Frame, scale: number): number {
  let deepest = 0;
  for (const child of frame.children.values()) {
    if (child.time * scale >= MIN_PX) deepest = Math.max(deepest, depthOf(child, scale));
  }
  return deepest + 1;
}

/**
 * The SVG of the profile's samples within [from, to] (microseconds of the profile's clock; all when not given), and
 * the CPU time they sum to (ms).
 */
export function flameGraph(
  profile: Profile,
  options: { from?: number; to?: number; title: string },
): { svg: string; sampledMs: number } {
  const root = framesOf(profile, options.from ?? profile.startTime, options.to ?? profile.endTime);
  const sampledMs = Math.round(root.time / 1000);
  return { svg: render(root, `${options.title}: ${sampledMs} ms of CPU`), sampledMs };
}

function render(root: Frame, title: string): string {
  const scale = WIDTH / Math.max(root.time, 1);
  const depth = depthOf(root, scale);
  const height = (depth + 2) * ROW;
  const rects: string[] = [];
  const draw = (frame: Frame, x: number, level: number) => {
    const width = frame.time * scale;
    const y = height - (level + 1) * ROW;
    const share = ((100 * frame.time) / root.time).toFixed(1);
    const chars = Math.floor((width - 4) / (FONT * 0.6));
    const label =
      chars < 3 ? '' : frame.name.length <= chars ? frame.name : `${frame.name.slice(0, chars - 2)}..`;
    rects.push(
      `<g><title>${escapeXml(`${frame.name} (${share} %, ${(frame.time / 1000).toFixed(0)} ms)`)}</title>` +
        `<rect x="${x.toFixed(2)}" y="${y}" width="${width.toFixed(2)}" height="${ROW - 1}" fill="${colourOf(frame.name)}"/>` +
        (label ? `<text x="${(x + 2).toFixed(2)}" y="${y + ROW - 4}">${escapeXml(label)}</text>` : '') +
        '</g>',
    );
    let childX = x;
    for (const child of [...frame.children.values()].sort((a, b) => a.name.localeCompare(b.name))) {
      if (child.time * scale >= MIN_PX) draw(child, childX, level + 1);
      childX += child.time * scale;
    }
  };
  draw(root, 0, 0);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="monospace" font-size="${FONT}">`,
    `<rect width="100%" height="100%" fill="#fdfdf5"/>`,
    `<text x="${WIDTH / 2}" y="${ROW - 3}" text-anchor="middle" font-size="${FONT + 2}">${escapeXml(title)}</text>`,
    ...rects,
    '</svg>',
    '',
  ].join('\n');
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' }, title: { type: 'string' } },
  });
  const [input, output] = positionals;
  if (!input || !output) {
    console.error(
      'usage: npx tsx bench/flameGraph.ts <file.cpuprofile> <out.svg> [--from S] [--to S] [--title T]',
    );
    process.exit(2);
  }
  const profile = readProfile(input);
  const secondsBeforeEnd = (value: string | undefined) =>
    value === undefined ? undefined : profile.endTime - Number(value) * 1e6;
  const { svg, sampledMs } = flameGraph(profile, {
    from: secondsBeforeEnd(values.from),
    to: secondsBeforeEnd(values.to),
    title: values.title ?? path.basename(input),
  });
  writeFileSync(output, svg);
  console.log(`${output}: ${sampledMs} ms sampled`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
