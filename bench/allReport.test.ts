import { describe, expect, it } from 'vitest';
import { formatTable } from './common.ts';
import type { BenchmarkRun, Machine } from './allReport.ts';
import {
  BEGIN_MARKER,
  END_MARKER,
  figuresFileName,
  figuresOf,
  outputAsMarkdown,
  renderRun,
  replaceGenerated,
  splitOutput,
} from './allReport.ts';

const machine: Machine = {
  startedAt: '2026-11-25T22:00:00Z',
  commit: 'abc1234',
  node: 'v20.20.2',
  cpuModel: 'Some CPU',
  cpus: 2,
  memoryGiB: 23.5,
  os: 'Linux 6.1 (x64)',
  postgres: '15.19, on the same machine',
  loadBefore: 0.4,
  loadAfter: 1.9,
  quick: false,
};

const table = formatTable(
  'SQLite: payments',
  ['load', 'req/s', 'vs floor'],
  [['floor', '20000.0', '100.0%']],
);
const stdout = [
  table,
  'Check (SQLite):',
  '  ok    every payment recorded once',
  '',
  'Target: met',
  JSON.stringify({ benchmark: 'billing-payments', results: { sqlite: { rate: 812.5 } } }),
].join('\n');

const run = (overrides: Partial<BenchmarkRun> = {}): BenchmarkRun => ({
  script: 'bench:payments',
  measures: 'Payments against the floor.',
  settings: {},
  exitCode: 0,
  seconds: 61.4,
  stdout,
  stderrTail: '',
  ...overrides,
});

describe('the generated part of docs/benchmarks.md', () => {
  it('formatTable prints a Markdown table, numbers right-aligned', () => {
    expect(table.split('\n')).toEqual([
      '',
      '**SQLite: payments**',
      '',
      '| load  |   req/s | vs floor |',
      '| ----- | ------: | -------: |',
      '| floor | 20000.0 |   100.0% |',
      '',
    ]);
  });

  it('keeps the JSON line apart, and the whole output when there is none', () => {
    expect(splitOutput(stdout).json).toEqual({
      benchmark: 'billing-payments',
      results: { sqlite: { rate: 812.5 } },
    });
    expect(splitOutput(stdout).body).not.toContain('billing-payments');
    expect(splitOutput('crashed\n{not json')).toEqual({ body: 'crashed\n{not json', json: undefined });
  });

  it('passes tables through and puts other lines in text blocks, their indentation kept', () => {
    expect(outputAsMarkdown(splitOutput(stdout).body).split('\n')).toEqual([
      '**SQLite: payments**',
      '',
      '| load  |   req/s | vs floor |',
      '| ----- | ------: | -------: |',
      '| floor | 20000.0 |   100.0% |',
      '',
      '```text',
      'Check (SQLite):',
      '  ok    every payment recorded once',
      '```',
      '',
      '```text',
      'Target: met',
      '```',
    ]);
  });

  it('names the machine and each benchmark, with its settings, its status and where every figure is', () => {
    const runs = [
      run({ settings: { BENCH_SECONDS: '2' } }),
      run({
        script: 'bench:billing',
        exitCode: 1,
        stdout: 'partial',
        stderrTail: 'FAILED: 3 invoices missing',
      }),
    ];
    const text = renderRun(machine, runs, 'benchmarks.json');
    expect(text.startsWith(BEGIN_MARKER)).toBe(true);
    expect(text.endsWith(END_MARKER)).toBe(true);
    expect(text).toContain('| CPU | Some CPU, 2 logical CPUs |');
    expect(text).toContain('| Load average (1 min) | 0.4 at the start, 1.9 at the end |');
    expect(text).toContain('### `npm run bench:payments`');
    expect(text).toContain('Settings: `BENCH_SECONDS=2`. 61 s, its checks passed.');
    expect(text).toContain('[benchmarks.json](benchmarks.json)');
    expect(text).not.toContain('billing-payments');
    expect(text).toContain('**FAILED** (exit status 1)');
    expect(text).toContain('FAILED: 3 invoices missing');
    expect(text).not.toContain('quick run');
    expect(renderRun({ ...machine, quick: true }, [], 'benchmarks.json')).toContain(
      'A quick run (`BENCH_ALL_QUICK=1`)',
    );
  });

  it('keeps every JSON line in the file beside the page, by npm script, with the machine', () => {
    expect(figuresFileName('/repo/docs/benchmarks.md')).toBe('benchmarks.json');
    const runs = [run(), run({ script: 'bench:billing', exitCode: 1, stdout: 'partial' })];
    expect(figuresOf(machine, runs)).toEqual({
      machine,
      benchmarks: {
        'bench:payments': { benchmark: 'billing-payments', results: { sqlite: { rate: 812.5 } } },
        'bench:billing': null,
      },
    });
  });

  it('replaces only what lies between the markers', () => {
    const doc = `# Figures\n\nBy hand.\n\n${BEGIN_MARKER}\nold run\n${END_MARKER}\n\n## Lessons\n`;
    const next = replaceGenerated(doc, `${BEGIN_MARKER}\nnew run\n${END_MARKER}`);
    expect(next).toBe(`# Figures\n\nBy hand.\n\n${BEGIN_MARKER}\nnew run\n${END_MARKER}\n\n## Lessons\n`);
    expect(() => replaceGenerated('# No markers\n', 'x')).toThrow(/no .* part to replace/);
  });
});
