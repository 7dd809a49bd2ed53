/**
 * The repository is self-contained: every document a comment or a page points to is in it.
 *
 * - A reference `docs/<name>.md §N` (or `<name>.md §N`, `… §N, §M`, `… §N to §M`) names a file that
 *   exists and a heading numbered N in it (`## 4. …`, `### 4.2 …`).
 * - A mention of `docs/<name>.md` names a file that exists.
 * - A relative markdown link in a page resolves to a file, and its `#anchor`, if any, to a heading
 *   of that page (GitHub's anchors).
 * - Nothing names the documents this project was first written against, which are not in it.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** What is scanned: these folders and files of the repository. */
const DIRS = ['src', 'docs', 'test', 'scripts', 'deploy', 'examples', 'bin'];
const ROOT_FILES = ['README.md', 'eslint.config.js', 'vitest.config.ts', 'docker-compose.yml'];
/** Recorded workflow histories are data, not text anyone reads. */
const SKIPPED = ['node_modules', 'test/replay/histories'];
const TEXT = /\.(ts|js|mjs|cjs|md|json|ya?ml)$/;

/** Built from pieces so that this file does not mention them itself. */
const FORBIDDEN = [
  ...['open-api', 'supplement'].map((name) => name + '.md'),
  ['..', 'shared'].join('/'),
];
/** A section of the design document named without its file, as the first design cited it. */
const BARE = ['architecture', '§'].join(' ');
const BARE_ARCHITECTURE = new RegExp(String.raw`(?<![\w[/.-])${BARE}`, 'g');

interface Source {
  /** Relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

function walk(dir: string, out: string[]): void {
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = `${dir}/${name}`;
    if (SKIPPED.includes(path) || name === 'node_modules') continue;
    if (statSync(join(ROOT, path)).isDirectory()) walk(path, out);
    else if (TEXT.test(name)) out.push(path);
  }
}

function sources(): Source[] {
  const paths: string[] = [];
  for (const dir of DIRS) walk(dir, paths);
  paths.push(...ROOT_FILES.filter((f) => exists(f)));
  return paths.map((path) => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

function exists(path: string): boolean {
  try {
    statSync(join(ROOT, path));
    return true;
  } catch {
    return false;
  }
}

/** A file a reference in `from` names: next to it, from the root, or in docs/. */
function resolveDoc(from: string, target: string): string | undefined {
  const candidates = [
    relative(ROOT, resolve(ROOT, dirname(from), target)),
    relative(ROOT, resolve(ROOT, target)),
    relative(ROOT, resolve(ROOT, 'docs', target)),
  ].map((p) => p.split('\\').join('/'));
  return candidates.find((p) => !p.startsWith('..') && exists(p));
}

interface Heading {
  /** `4`, `4.2`, …, when the heading is numbered. */
  number?: string;
  anchor: string;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const headingCache = new Map<string, Heading[]>();

function headings(path: string): Heading[] {
  let found = headingCache.get(path);
  if (found !== undefined) return found;
  found = [];
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of readFileSync(join(ROOT, path), 'utf8').split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const text = m[1]!;
    const base = anchorOf(text);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(text)?.[1];
    found.push({ anchor: n === 0 ? base : `${base}-${n}`, ...(number && { number }) });
  }
  headingCache.set(path, found);
  return found;
}

const SECTION = String.raw`§\d+(?:\.\d+)*`;
/** `name.md §N`, followed by more sections: `, §M`, ` and §M`, ` to §M`, `–§M`. */
const SECTION_REF = new RegExp(
  String.raw`([\w./-]*[\w-]\.md)\s+(${SECTION}(?:\s*(?:,|and|or|to|–)\s*${SECTION})*)`,
  'g',
);
const DOCS_MENTION = /(?<![\w./-])docs\/[\w-]+\.md/g;
const MD_LINK = /\]\(([^)\s]+)\)/g;

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

function problemsIn(s: Source): string[] {
  const problems: string[] = [];
  const at = (index: number) => `${s.path}:${lineOf(s.text, index)}`;

  for (const m of s.text.matchAll(SECTION_REF)) {
    const target = resolveDoc(s.path, m[1]!);
    if (target === undefined) {
      problems.push(`${at(m.index)}: ${m[1]} does not exist`);
      continue;
    }
    const numbers = new Set(headings(target).map((h) => h.number));
    for (const section of m[2]!.match(/\d+(?:\.\d+)*/g) ?? []) {
      if (!numbers.has(section)) problems.push(`${at(m.index)}: ${target} has no §${section}`);
    }
  }

  for (const m of s.text.matchAll(DOCS_MENTION)) {
    if (!exists(m[0])) problems.push(`${at(m.index)}: ${m[0]} does not exist`);
  }

  if (s.path.endsWith('.md')) {
    for (const m of s.text.matchAll(MD_LINK)) {
      const link = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
      const [file = '', anchor] = link.split('#');
      const target =
        file === ''
          ? s.path
          : relative(ROOT, resolve(ROOT, dirname(s.path), file))
              .split('\\')
              .join('/');
      if (target.startsWith('..') || !exists(target)) {
        problems.push(`${at(m.index)}: link ${link} does not resolve next to ${s.path}`);
      } else if (anchor !== undefined && target.endsWith('.md')) {
        if (!headings(target).some((h) => h.anchor === anchor)) {
          problems.push(`${at(m.index)}: ${target} has no heading #${anchor}`);
        }
      }
    }
  }

  for (const word of FORBIDDEN) {
    for (let i = s.text.indexOf(word); i >= 0; i = s.text.indexOf(word, i + 1)) {
      problems.push(`${at(i)}: names ${word}, which is not in the repository`);
    }
  }
  // The first design document's way, a section without a file, points nowhere.
  for (const m of s.text.matchAll(BARE_ARCHITECTURE)) {
    problems.push(`${at(m.index)}: "${BARE}" without its file (docs/architecture.md)`);
  }
  return problems;
}

describe('references to documents', () => {
  const all = sources();

  it('scans the repository', () => {
    expect(all.map((s) => s.path)).toEqual(
      expect.arrayContaining(['README.md', 'docs/architecture.md', 'docs/supplier-api.md']),
    );
  });

  it('point at files and numbered sections that exist, and never outside the repository', () => {
    expect(all.flatMap(problemsIn)).toEqual([]);
  });

  it('knows a numbered heading and its anchor', () => {
    expect(anchorOf('7.1 createOrderV3')).toBe('71-createorderv3');
    expect(anchorOf('13.2 Error classes')).toBe('132-error-classes');
    expect(headings('docs/architecture.md').map((h) => h.number)).toEqual(
      expect.arrayContaining(['1', '1.1', '13.2', '20']),
    );
  });

  it('finds a reference that points nowhere', () => {
    const doc = (name: string) => `docs/${name}.md`;
    const broken: Source = {
      path: 'src/example.ts',
      text: [
        `// ${doc('architecture')} §99, ${doc('nothing-here')} §1`,
        `// see ${FORBIDDEN[0]!}`,
        `// (${BARE}3)`,
      ].join('\n'),
    };
    expect(problemsIn(broken)).toEqual([
      `src/example.ts:1: ${doc('architecture')} has no §99`,
      `src/example.ts:1: ${doc('nothing-here')} does not exist`,
      `src/example.ts:1: ${doc('nothing-here')} does not exist`,
      `src/example.ts:2: names ${FORBIDDEN[0]!}, which is not in the repository`,
      `src/example.ts:3: "${BARE}" without its file (${doc('architecture')})`,
    ]);
  });
});
