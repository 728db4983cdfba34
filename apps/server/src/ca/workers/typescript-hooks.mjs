// @ts-check
/**
 * Module loader hooks for a worker thread that runs the server's TypeScript sources (the test
 * runner's case; Node 20 cannot strip types), registered by from-source.mjs. The build never
 * uses them: there a worker runs its compiled `.js`.
 *
 * - `./x.js` imported from a `.ts` file is `./x.ts` when that exists (the sources' import style);
 * - `@callsign/contract` is its TypeScript source (the package's `source` export, as tsc reads
 *   it), so nothing needs building first;
 * - a `.ts` file is compiled with TypeScript's `transpileModule`: types dropped, nothing checked.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import ts from 'typescript';

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, next) {
  if (
    context.parentURL?.endsWith('.ts') === true &&
    specifier.startsWith('.') &&
    specifier.endsWith('.js')
  ) {
    const source = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(source)) return { url: source.href, shortCircuit: true };
  }
  if (specifier.startsWith('@callsign/')) {
    return next(specifier, { ...context, conditions: [...context.conditions, 'source'] });
  }
  return next(specifier, context);
}

/** @type {import('node:module').LoadHook} */
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const { outputText } = ts.transpileModule(await readFile(new URL(url), 'utf8'), {
    fileName: url,
    compilerOptions: {
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      verbatimModuleSyntax: true,
    },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
