/**
 * The `dropflow` command (architecture §8). Each subcommand lives in its own module under
 * ./commands/ and exports `register(program)`; add new ones to `commands` below.
 * Command output goes to stdout (`--json`: one JSON document); logs go to stderr.
 */
import { Command } from 'commander';

import pkg from '../../package.json' with { type: 'json' };
import * as dev from './commands/dev.js';
import * as sandbox from './commands/sandbox.js';
import * as temporalCli from './commands/temporalCli.js';

interface CommandModule {
  register(program: Command): void;
}

const commands: readonly CommandModule[] = [dev, sandbox, temporalCli];

export function registerCommands(program: Command): void {
  for (const command of commands) command.register(program);
}

export function createProgram(): Command {
  const program = new Command('dropflow')
    .description(pkg.description)
    .version(pkg.version)
    .showHelpAfterError()
    .enablePositionalOptions();
  registerCommands(program);
  return program;
}

/** Runs the command line; `argv` as in `process.argv` (node, script, args…). */
export async function main(argv: readonly string[] = process.argv): Promise<void> {
  await createProgram().parseAsync(argv);
}
