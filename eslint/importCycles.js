// @ts-check
/**
 * `layers/no-import-cycle`: no file imports a file that imports it back, by any route, counting
 * type-only imports too. `import-x/no-cycle` skips type-only imports, and a type-only cycle still
 * ties two modules together (order/contract.ts ↔ storeEvents/contract.ts was one).
 *
 * Only relative specifiers count (packages cannot import the project). The graph is read from disk
 * with TypeScript's import scanner, the linted file from its current text.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

import ts from 'typescript';

/** @type {Map<string, { mtimeMs: number; imports: string[] }>} */
const scanned = new Map();

/** @param {string} from @param {string} specifier */
function resolveRelative(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const ext = path.extname(base);
  const stem = base.slice(0, base.length - ext.length);
  const candidates = {
    '.js': [`${stem}.ts`, `${stem}.tsx`, base],
    '.mjs': [`${stem}.mts`, base],
    '.cjs': [`${stem}.cts`, base],
  }[ext] ?? [base, `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

/** @param {string} file @param {string} text */
function importsIn(file, text) {
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles
    .map((ref) => resolveRelative(file, ref.fileName))
    .filter((target) => target !== undefined);
}

/** @param {string} file */
function importsOnDisk(file) {
  const { mtimeMs } = statSync(file);
  const known = scanned.get(file);
  if (known?.mtimeMs === mtimeMs) return known.imports;
  const imports = /\.(m|c)?tsx?$/.test(file) ? importsIn(file, readFileSync(file, 'utf8')) : [];
  scanned.set(file, { mtimeMs, imports });
  return imports;
}

/**
 * A shortest route from `start` back to `goal`, or undefined when there is none.
 * @param {string} start @param {string} goal @param {(file: string) => string[]} importsOf
 */
function routeBack(start, goal, importsOf) {
  /** @type {Map<string, string | undefined>} */
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const file = /** @type {string} */ (queue.shift());
    for (const next of importsOf(file)) {
      if (next === goal) {
        const route = [file];
        for (let at = cameFrom.get(file); at !== undefined; at = cameFrom.get(at))
          route.unshift(at);
        return route;
      }
      if (cameFrom.has(next)) continue;
      cameFrom.set(next, file);
      queue.push(next);
    }
  }
  return undefined;
}

/**
 * The visitors that hand `check` every import and re-export specifier of a file, dynamic and
 * type-level ones included.
 * @param {(node: import('estree').Node, specifier: unknown) => void} check
 * @returns {import('eslint').Rule.RuleListener}
 */
function visitImports(check) {
  return {
    ImportDeclaration: (node) => check(node, node.source.value),
    ExportNamedDeclaration: (node) => node.source && check(node, node.source.value),
    ExportAllDeclaration: (node) => check(node, node.source.value),
    ImportExpression: (node) => node.source.type === 'Literal' && check(node, node.source.value),
    /** @param {any} node */
    TSImportType: (node) => check(node, node.argument?.literal?.value ?? node.argument?.value),
  };
}

/** @type {import('eslint').Rule.RuleModule} */
const noImportCycle = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycles between files, type-only imports included' },
    messages: { cycle: 'Import cycle: {{route}}' },
    schema: [],
  },
  create(context) {
    const file = context.physicalFilename;
    const cwd = context.cwd;
    const ownImports = importsIn(file, context.sourceCode.text);
    /** @param {string} at */
    const importsOf = (at) => (at === file ? ownImports : importsOnDisk(at));
    /** @type {Set<string>} */
    const reported = new Set();

    /** @param {import('estree').Node} node @param {unknown} specifier */
    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      const target = resolveRelative(file, specifier);
      if (target === undefined || target === file || reported.has(target)) return;
      const route = routeBack(target, file, importsOf);
      if (route === undefined) return;
      reported.add(target);
      const shown = [file, ...route, file].map((at) => path.relative(cwd, at)).join(' → ');
      context.report({ node, messageId: 'cycle', data: { route: shown } });
    }

    return visitImports(check);
  },
};

/** The folder of src/ that holds `file`, or undefined outside src/ or at its top. */
function areaOf(/** @type {string} */ src, /** @type {string} */ file) {
  const parts = path.relative(src, file).split(path.sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/**
 * `layers/area-order`: the folders of src/ in their order, bottom to top (`areas`). A file may
 * import its own folder and those below it, never one above, type-only imports included; so no
 * two folders import each other.
 */
/** @type {import('eslint').Rule.RuleModule} */
const areaOrder = {
  meta: {
    type: 'problem',
    docs: { description: 'No import from a folder of src/ above the importing one' },
    messages: {
      climbs:
        '{{from}}/ sits below {{to}}/ (areas, bottom to top: {{order}}): move what it needs down, or the importer up (docs/architecture.md §2.1).',
    },
    schema: [
      {
        type: 'object',
        properties: {
          areas: { type: 'array', items: { type: 'string' } },
        },
        required: ['areas'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { areas } = /** @type {{ areas: string[] }} */ (context.options[0]);
    const file = context.physicalFilename;
    const src = path.join(context.cwd, 'src');
    const from = areaOf(src, file);
    const rank = from === undefined ? -1 : areas.indexOf(from);
    if (rank < 0) return {};

    /** @param {import('estree').Node} node @param {unknown} specifier */
    function check(node, specifier) {
      if (typeof specifier !== 'string') return;
      const target = resolveRelative(file, specifier);
      const to = target === undefined ? undefined : areaOf(src, target);
      if (to === undefined || areas.indexOf(to) <= rank) return;
      context.report({
        node,
        messageId: 'climbs',
        data: { from: /** @type {string} */ (from), to, order: areas.join(' < ') },
      });
    }

    return visitImports(check);
  },
};

export const layersPlugin = {
  rules: { 'no-import-cycle': noImportCycle, 'area-order': areaOrder },
};
