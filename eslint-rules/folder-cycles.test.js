import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { afterEach, describe, expect, it } from 'vitest';
import plugin from './folder-cycles.js';

const made = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A modules folder with the given files (path under modules/ -> source). */
function modulesWith(files) {
  const root = mkdtempSync(path.join(tmpdir(), 'folder-cycles-'));
  made.push(root);
  const modulesDir = path.join(root, 'modules');
  for (const [name, source] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(modulesDir, name)), { recursive: true });
    writeFileSync(path.join(modulesDir, name), source);
  }
  return modulesDir;
}

function lint(modulesDir, name, source) {
  const linter = new Linter({ configType: 'flat', cwd: path.dirname(modulesDir) });
  const config = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { local: plugin },
      rules: { 'local/folder-cycles': ['error', { modulesDir }] },
    },
  ];
  return linter.verify(source, config, path.join(modulesDir, name)).map((m) => m.message);
}

describe('folder-cycles', () => {
  it('reports a route importing a module whose files import the route’s module back', () => {
    const people = `import { receipt } from '../certificates/receipt.js';\nexport const r = receipt;\n`;
    const dir = modulesWith({
      'people/routes.ts': people,
      'people/service.ts': 'export const findMember = 1;\n',
      'certificates/receipt.ts': `import { findMember } from '../people/service.js';\nexport const receipt = findMember;\n`,
    });
    const messages = lint(dir, 'people/routes.ts', people);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain('modules/people → modules/certificates → modules/people');
  });

  it('follows a cycle through a third folder', () => {
    const a = `import { b } from '../b/b.js';\nexport const a = b;\n`;
    const dir = modulesWith({
      'a/a.ts': a,
      'b/b.ts': `import { c } from '../c/c.js';\nexport const b = c;\n`,
      'c/c.ts': `import { a } from '../a/a.js';\nexport const c = a;\n`,
    });
    expect(lint(dir, 'a/a.ts', a)[0]).toContain('modules/a → modules/b → modules/c → modules/a');
  });

  it('accepts imports one way, and type-only imports back', () => {
    const people = `import { receipt } from '../certificates/receipt.js';\nexport const r = receipt;\n`;
    const dir = modulesWith({
      'people/routes.ts': people,
      'people/service.ts': 'export interface Member { callsign: string }\n',
      'certificates/receipt.ts': `import type { Member } from '../people/service.js';\nimport { type Member as M } from '../people/service.js';\nexport const receipt = (m: Member, n: M) => [m, n];\n`,
    });
    expect(lint(dir, 'people/routes.ts', people)).toEqual([]);
  });

  it('ignores tests, which may reach across folders', () => {
    const people = `import { receipt } from '../certificates/receipt.js';\nexport const r = receipt;\n`;
    const dir = modulesWith({
      'people/routes.ts': people,
      'certificates/receipt.ts': 'export const receipt = 1;\n',
      'certificates/receipt.test.ts': `import { r } from '../people/routes.js';\nexport const t = r;\n`,
    });
    expect(lint(dir, 'people/routes.ts', people)).toEqual([]);
  });
});
