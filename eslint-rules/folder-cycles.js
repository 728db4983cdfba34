import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * No import cycle between the server's module folders (docs/architecture.md, "Layer rules
 * enforced"): `modules/<a>` may import `modules/<b>` only if nothing in `modules/<b>` (its routes
 * included) imports `modules/<a>`, directly or through other folders. import-x/no-cycle follows
 * files; this follows folders, so a route importing a module that imports the route's own module
 * back is caught too. Type-only imports load nothing and are not counted.
 *
 * The folder graph is read once per lint run from the shipped `.ts` files (tests and
 * `*.testing.ts` excluded), with the same import syntax the rule checks.
 */

const IMPORT = /^\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s+['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Whether the import's clause brings in a value (not only `type` names). */
function importsValue(typeKeyword, clause) {
  if (typeKeyword) return false;
  const braces = /\{([^}]*)\}/.exec(clause);
  const outside = clause
    .replace(/\{[^}]*\}/, '')
    .replace(/,/g, '')
    .trim();
  if (outside !== '') return true; // a default or namespace import
  if (braces === null) return true;
  const names = braces[1]
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  return names.length === 0 || names.some((name) => !name.startsWith('type '));
}

function shippedFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .filter((entry) => !/\.(test|testing)\.tsx?$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

/** The folder a file belongs to, as `modules/<name>`, or undefined outside the modules. */
function folderOf(file, modulesDir) {
  const relative = path.relative(modulesDir, file);
  if (relative.startsWith('..') || !relative.includes(path.sep)) return undefined;
  return `modules/${relative.split(path.sep)[0]}`;
}

const graphs = new Map();

/** folder -> Set(folders it imports values from), built once per modules directory. */
function folderGraph(modulesDir) {
  let graph = graphs.get(modulesDir);
  if (graph !== undefined) return graph;
  graph = new Map();
  for (const file of shippedFiles(modulesDir)) {
    const from = folderOf(file, modulesDir);
    if (from === undefined) continue;
    const source = readFileSync(file, 'utf8');
    for (const [, typeKeyword, clause, specifier] of source.matchAll(IMPORT)) {
      if (!importsValue(typeKeyword, clause)) continue;
      const to = folderOf(path.resolve(path.dirname(file), specifier), modulesDir);
      if (to === undefined || to === from) continue;
      if (!graph.has(from)) graph.set(from, new Set());
      graph.get(from).add(to);
    }
  }
  graphs.set(modulesDir, graph);
  return graph;
}

/** A path of folders from `start` to `goal` in `graph`, or undefined. */
function pathBetween(graph, start, goal) {
  const cameFrom = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const folder = queue.shift();
    if (folder === goal) {
      const route = [];
      for (let at = goal; at !== undefined; at = cameFrom.get(at)) route.unshift(at);
      return route;
    }
    for (const next of graph.get(folder) ?? []) {
      if (!cameFrom.has(next)) {
        cameFrom.set(next, folder);
        queue.push(next);
      }
    }
  }
  return undefined;
}

export const folderCycles = {
  meta: {
    type: 'problem',
    docs: { description: 'No import cycle between the folders of the server modules' },
    schema: [
      { type: 'object', properties: { modulesDir: { type: 'string' } }, required: ['modulesDir'] },
    ],
    messages: {
      cycle:
        '{{from}} imports {{to}}, which imports {{from}} back ({{route}}): the two folders form a cycle. Move the shared rule into the lower module, or compose the two in commands/ or portal.ts.',
    },
  },
  create(context) {
    const modulesDir = context.options[0].modulesDir;
    const from = folderOf(context.filename, modulesDir);
    if (from === undefined) return {};
    const check = (node) => {
      if (node.source === null || node.source === undefined) return;
      const specifier = String(node.source.value);
      if (!specifier.startsWith('.')) return;
      if (node.importKind === 'type' || node.exportKind === 'type') return;
      const specifiers = node.specifiers ?? [];
      if (
        specifiers.length > 0 &&
        specifiers.every((s) => s.importKind === 'type' || s.exportKind === 'type')
      ) {
        return;
      }
      const to = folderOf(path.resolve(path.dirname(context.filename), specifier), modulesDir);
      if (to === undefined || to === from) return;
      const back = pathBetween(folderGraph(modulesDir), to, from);
      if (back === undefined) return;
      context.report({
        node,
        messageId: 'cycle',
        data: { from, to, route: [from, ...back].join(' → ') },
      });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
  },
};

export default { rules: { 'folder-cycles': folderCycles } };
