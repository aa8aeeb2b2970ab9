import { dialect } from './service.ts';

/**
 * The random runs a property test makes after its fixed examples: as many as given on SQLite, a third of them (at
 * least two) on PostgreSQL. What a property compares is the billing core's, the same over either database, and its
 * fixed examples run on both; each PostgreSQL statement is a round trip, so a run took two to three times as long
 * there (CONTRIBUTING.md, "How long the suite takes"). FC_RUNS sets both; FC_SEED=<seed> replays a failure.
 */
export function randomRuns(onSqlite: number): number {
  const given = process.env.FC_RUNS;
  if (given !== undefined) return Number(given);
  return dialect === 'postgres' ? Math.max(2, Math.ceil(onSqlite / 3)) : onSqlite;
}
