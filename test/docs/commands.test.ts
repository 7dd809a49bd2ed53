/**
 * The README and docs/ name only `dropflow` commands that exist: every `dropflow <command>` (and
 * `<command> <subcommand>`) they show in code is one the CLI registers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';

import { createProgram } from '../../src/cli/main.js';

const ROOT = new URL('../../', import.meta.url);
const PAGES = ['README.md', ...readdirSync(new URL('docs/', ROOT)).map((f) => `docs/${f}`)].filter(
  (p) => p.endsWith('.md'),
);
/** `dropflow x [y]` in inline code, or after npx in a shell block. */
const NAMED = /(?:`|npx )dropflow ([a-z][\w-]*)(?: ([a-z][\w-]*))?/g;

function named(text: string): string[][] {
  return [...text.matchAll(NAMED)].map((m) => [m[1]!, ...(m[2] === undefined ? [] : [m[2]])]);
}

/** What is wrong with `words` as a command line of `program`, or undefined. */
function problem(program: Command, words: string[]): string | undefined {
  const [name, sub] = words;
  const command = program.commands.find((c) => c.name() === name);
  if (command === undefined) return `no command ${name}`;
  if (command.commands.length === 0 || sub === undefined) return undefined;
  return command.commands.some((c) => c.name() === sub) ? undefined : `no command ${name} ${sub}`;
}

describe('commands named in the docs', () => {
  const program = createProgram();

  it('are commands the CLI registers', () => {
    const problems = PAGES.flatMap((page) =>
      named(readFileSync(new URL(page, ROOT), 'utf8')).flatMap((words) => {
        const why = problem(program, words);
        return why === undefined ? [] : [`${page}: dropflow ${words.join(' ')}: ${why}`];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('finds one that does not exist', () => {
    const words = named('run `dropflow frozen`, then `dropflow webhooks relay` and `dropflow fly`');
    expect(words.map((w) => problem(program, w))).toEqual([
      undefined,
      'no command webhooks relay',
      'no command fly',
    ]);
  });
});
