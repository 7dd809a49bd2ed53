/**
 * `npm run chaos -- --orders N [--seed S] [--json]`: a chaos run (run.ts), its table on stdout
 * and, with --json, one JSON object as the last line. Exits 1 when a counter that must be 0 is not.
 */
import { parseChaosArgs } from './options.js';
import { failingCounters, formatTable, summary } from './report.js';
import { runChaos } from './run.js';

const args = parseChaosArgs(process.argv.slice(2), () => Math.floor(Math.random() * 1_000_000));
const report = await runChaos({
  ...args.options,
  progress: (line) => process.stderr.write(`${line}\n`),
});

const result = summary(report);
process.stdout.write(`${formatTable(report)}\n`);
if (args.json) process.stdout.write(`${JSON.stringify(result)}\n`);
if (failingCounters(result).length > 0) process.exitCode = 1;
