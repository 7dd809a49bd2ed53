/**
 * The worker image and the npm package carry the product only, not the dev tools (tools/: the
 * sandbox, bench, chaos). No Docker engine here: the image is rebuilt as the Dockerfile's COPY
 * lines lay it out, in a temporary directory, and the dropflow command is run in it.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');

/** The sources of the Dockerfile's COPY lines (the last word is the destination). */
function copiedPaths(): string[] {
  return readFileSync(join(root, 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => /^COPY\s/.test(line))
    .flatMap((line) => line.trim().split(/\s+/).slice(1, -1));
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|js|cjs|mjs)$/.test(f))
    .map((f) => join(dir, f));
}

/** Relative specifiers of static imports and re-exports, and of dynamic imports. */
function specifiers(file: string): { static: string[]; dynamic: string[] } {
  const text = readFileSync(join(root, file), 'utf8');
  const all = (re: RegExp) => [...text.matchAll(re)].map((m) => m[1]!);
  return {
    static: all(/^\s*(?:import|export)\b[^'"]*?\bfrom\s*['"](\.[^'"]+)['"]/gm),
    dynamic: all(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  };
}

const intoTools = (file: string, spec: string) =>
  relative(root, resolve(root, dirname(file), spec)).startsWith('tools/');

describe('the product without the dev tools', () => {
  it('the Dockerfile copies the product only', () => {
    const copied = copiedPaths();
    expect(copied).toEqual(
      expect.arrayContaining(['package.json', 'package-lock.json', 'bin', 'src']),
    );
    for (const path of copied) {
      expect(path, 'a COPY of the whole tree or of tools/').not.toMatch(/^(\.|\.\/|tools\b.*)$/);
    }
    // Not even in the build context, should a later COPY take more.
    expect(readFileSync(join(root, '.dockerignore'), 'utf8').split('\n')).toContain('tools');
  });

  it('no product file imports the tools statically; only src/cli/devtools.ts loads them', () => {
    for (const file of [...sourceFiles('src'), ...sourceFiles('bin')]) {
      const { static: imports, dynamic } = specifiers(file);
      expect(
        imports.filter((s) => intoTools(file, s)),
        file,
      ).toEqual([]);
      if (file !== join('src', 'cli', 'devtools.ts')) {
        expect(
          dynamic.filter((s) => intoTools(file, s)),
          file,
        ).toEqual([]);
      }
    }
  });

  it('the npm package leaves tools/ out, and the tools package is private', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: root,
    });
    const [pack] = JSON.parse(stdout) as [{ files: { path: string }[] }];
    const paths = pack.files.map((f) => f.path);
    expect(paths).toContain('src/worker.ts');
    expect(paths.filter((p) => p.startsWith('tools/'))).toEqual([]);
    const tools = JSON.parse(readFileSync(join(root, 'tools/package.json'), 'utf8')) as {
      private?: boolean;
    };
    expect(tools.private).toBe(true);
  });

  describe('the dropflow command in the image', () => {
    let image: string;

    beforeAll(() => {
      image = mkdtempSync(join(tmpdir(), 'dropflow-image-'));
      for (const path of copiedPaths()) {
        cpSync(join(root, path), join(image, path), { recursive: true });
      }
      // `npm ci --omit=dev` in the image; the checkout's modules stand in for it.
      symlinkSync(join(root, 'node_modules'), join(image, 'node_modules'));
    });

    afterAll(() => {
      rmSync(image, { recursive: true, force: true });
    });

    /** The command's exit code and stderr, in the image's directory. */
    async function dropflow(...args: string[]): Promise<{ code: number; stderr: string }> {
      const env = Object.fromEntries(
        Object.entries(process.env).filter(([name]) => !/^(SUPPLIER_|DROPFLOW_)/.test(name)),
      );
      try {
        const { stderr } = await run(process.execPath, ['bin/dropflow.js', ...args], {
          cwd: image,
          env,
        });
        return { code: 0, stderr };
      } catch (err) {
        const failed = err as { code: number; stderr: string };
        return { code: failed.code, stderr: failed.stderr };
      }
    }

    it('has no tools/', () => {
      expect(readdirSync(image)).not.toContain('tools');
    });

    it.concurrent.each([
      ['sandbox', ['sandbox', '--memory', '--port', '0']],
      ['dev', ['dev']],
      ['bench webhooks', ['bench', 'webhooks']],
      ['bench orders', ['bench', 'orders']],
    ])('`dropflow %s` says it needs the dev tools, and starts nothing', async (name, args) => {
      const { code, stderr } = await dropflow(...args);
      expect(code).toBe(1);
      expect(stderr).toContain(`\`dropflow ${name}\` needs dropflow's dev tools`);
      expect(stderr).toContain('source checkout');
    });

    it('still lists those commands in its help', async () => {
      const { stdout } = await run(process.execPath, ['bin/dropflow.js', '--help'], {
        cwd: image,
      });
      for (const command of ['dev', 'sandbox', 'bench', 'worker', 'gateway']) {
        expect(stdout).toMatch(new RegExp(`^\\s+${command}\\b`, 'm'));
      }
    });
  });
});
