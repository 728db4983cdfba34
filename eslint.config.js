import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import pluginQuery from '@tanstack/eslint-plugin-query';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig } from 'eslint/config';
import globals from 'globals';
import folderCyclesPlugin from './eslint-rules/folder-cycles.js';
import tseslint from 'typescript-eslint';

/**
 * Import boundaries: the layers of the architecture as lint rules (docs/architecture.md). Each
 * zone forbids the files under `target` to import anything under `from` (paths from the
 * repository root, or globs; imports are resolved, so a relative path that climbs into a
 * forbidden folder is caught). To add a layer rule, add a zone.
 */
const WEB = 'apps/web/src';
const SERVER = 'apps/server/src';

/** The folders directly under `dir` (features, modules): a new one is covered at once. */
function foldersIn(dir) {
  return readdirSync(`${import.meta.dirname}/${dir}`, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name);
}

const webFeatures = foldersIn(`${WEB}/features`);
const serverModules = foldersIn(`${SERVER}/modules`);

/**
 * The shipped TypeScript files under `dir` (not `*.test.ts`, not `*.testing.ts`). Tests may reach
 * across the layers to set up a case and to check one layer against another (the migration test
 * hashes codes as sign-in does; an API test writes a member straight into the database): the
 * layer rules govern what ships.
 */
function shippedIn(dir) {
  return `${dir}/**/!(*.test|*.testing).ts`;
}

/** A module's repository files (`repository.ts`, `login-code-repository.ts`, ...): its SQL. */
function repositoriesOf(module) {
  return `${SERVER}/modules/${module}/**/*repository.ts`;
}

/** @type {{ target: string, from: string | string[], except?: string[], message: string }[]} */
const importBoundaries = [
  {
    target: [`${WEB}/components`, `${WEB}/lib`],
    from: [`${WEB}/features`, `${WEB}/guides`, `${WEB}/app`],
    message:
      'components/ and lib/ are shared pieces: they import no feature, guide or app module (pass what they need in).',
  },
  ...webFeatures.map((feature) => ({
    target: `${WEB}/features/${feature}`,
    from: `${WEB}/features`,
    except: [`./${feature}`],
    message: `A feature does not import another feature: move the shared piece to components/ or lib/, or compose the two in app/.`,
  })),
  {
    target: `${WEB}/features`,
    from: [`${WEB}/guides`, `${WEB}/app`],
    message: 'A feature imports no guide page and nothing of app/ (app/ composes features).',
  },
  {
    // The guide pages sit above the features (a guide step offers the TAK download) and below app/.
    target: `${WEB}/guides`,
    from: `${WEB}/app`,
    message: 'Guide pages import nothing of app/ (the route table imports them).',
  },
  {
    // The server's lower layers know nothing of the modules, the HTTP layer or the CLI.
    target: ['ca', 'tls', 'db', 'tak', 'metrics', 'directory'].map((layer) =>
      shippedIn(`${SERVER}/${layer}`),
    ),
    from: [`${SERVER}/modules`, `${SERVER}/http`, `${SERVER}/cli`, `${SERVER}/cli.ts`],
    message:
      'ca/, tls/, db/, tak/, metrics/ and directory/ import nothing from modules/, http/ or the CLI: pass what they need in (an interface they declare, a value).',
  },
  ...serverModules.map((module) => ({
    // Everything shipped outside the module: the other modules, http/, the CLI, portal.ts, ...
    target: [
      `${SERVER}/!(modules)/**/!(*.test|*.testing).ts`,
      `${SERVER}/!(*.test|*.testing).ts`,
      ...serverModules
        .filter((other) => other !== module)
        .map((other) => shippedIn(`${SERVER}/modules/${other}`)),
    ],
    from: repositoriesOf(module),
    message: `A module's repository (its SQL) is private to it: call the ${module} module's service instead, or add the call there.`,
  })),
  {
    // Commands (operations that span modules, commands/) sit above the modules: a module's routes
    // call one, the CLI and portal.ts may; a service or repository never does.
    target: `${SERVER}/modules/**/!(routes|*.test|*.testing).ts`,
    from: `${SERVER}/commands`,
    message:
      'A module does not import a command (commands/ composes modules): call the command from the route or the CLI, or move the shared rule into the module.',
  },
  {
    // Members are the base the other modules build on (enrollment, invites, certificates and
    // sign-in read and add them through people/service.ts): people needs none of them back. An
    // operation that changes members and another module's rows is a command.
    target: `${SERVER}/modules/people/**/!(routes|*.test|*.testing).ts`,
    from: serverModules
      .filter((module) => !['people', 'auth', 'audit'].includes(module))
      .map((module) => `${SERVER}/modules/${module}`),
    message:
      'The people module imports no module but auth and audit: put an operation that spans people and another module in commands/.',
  },
  {
    // Services take an Actor or a client address, never a request; only the HTTP edge of a module
    // (its routes, `routes.ts` or `<face>-routes.ts` such as the TAK enrollment face's, and the
    // access hook with the identity it reads) knows Fastify.
    target: `${SERVER}/modules/**/!(routes|*-routes|access|identity|*.test|*.testing).ts`,
    from: ['node_modules/fastify', 'node_modules/@fastify'],
    message:
      'No service imports Fastify: the route reads the request and passes the service what it needs (an Actor, a client address, the parsed body).',
  },
];

export default defineConfig(
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'data/**',
      'coverage/**',
      'test-results/**',
      'bench/results/**',
    ],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: {
          allowDefaultProject: ['*.js', '*.ts'],
        },
        tsconfigRootDir: import.meta.dirname,
      },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // The layer rules above, on every TypeScript source (imports resolved as TypeScript does).
    files: ['apps/**/*.{ts,tsx}', 'packages/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [
        createNodeResolver({
          extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'],
          // The server and the contract import their TypeScript files by the .js name.
          extensionAlias: { '.js': ['.ts', '.tsx', '.js'] },
        }),
      ],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { zones: importBoundaries, basePath: import.meta.dirname },
      ],
    },
  },
  {
    // No import cycle among the server's modules and commands: a module that needs another's
    // rule calls it one way only; an operation in both directions is a command (commands/).
    // Type-only imports are not cycles (nothing is loaded); scoped here, as the rule walks the
    // import graph of every file it checks.
    files: [shippedIn(`${SERVER}/modules`), shippedIn(`${SERVER}/commands`)],
    // The rule reads the imported files to follow their imports: TypeScript ones too.
    settings: { 'import-x/extensions': ['.ts'] },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // No cycle between module folders either, routes included (eslint-rules/folder-cycles.js):
    // a route of people that imports certificates, while certificates imports people, is one.
    files: [shippedIn(`${SERVER}/modules`)],
    plugins: { local: folderCyclesPlugin },
    rules: {
      'local/folder-cycles': ['error', { modulesDir: `${import.meta.dirname}/${SERVER}/modules` }],
    },
  },
  {
    // The web app: React hooks rules and TanStack Query's rules (stable keys, no rest destructuring).
    files: ['apps/web/**/*.{ts,tsx}'],
    extends: [
      reactHooks.configs.flat['recommended-latest'],
      pluginQuery.configs['flat/recommended'],
    ],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Plain JavaScript configuration files have no types to check against.
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The benchmarks (bench/, its own npm package): plain ESM with JSDoc, outside the TS projects.
    files: ['bench/**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // The TAK enrollment face registers every route through takFaceRoute, which declares the
    // route's access and its 200 answer and logs the client in for the handler: a route added
    // past it declares neither (the face would refuse to start as well, naming it).
    files: [`${SERVER}/modules/tak/tak-enrollment-face-routes.ts`],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "CallExpression[callee.type='MemberExpression'][callee.property.name=/^(get|post|put|patch|delete|head|options|all|route)$/]",
          message:
            'A route of the TAK enrollment face is registered with takFaceRoute (access declared, a 200 answer, the login in the handler), never with app.get/post/route.',
        },
      ],
    },
  },
  {
    // One date format in the web app: every date on screen goes through lib/format.ts (the
    // formatter itself and the key names' day are the only places that build one).
    files: [`${WEB}/**/*.{ts,tsx}`],
    ignores: [`${WEB}/lib/format.ts`, `${WEB}/lib/key-names.ts`, `${WEB}/**/*.test.{ts,tsx}`],
    rules: {
      'no-restricted-properties': [
        'error',
        ...['DateTimeFormat'].map((property) => ({
          object: 'Intl',
          property,
          message: 'Dates on screen use formatDate / formatDateTime of lib/format.ts.',
        })),
        ...['toLocaleString', 'toLocaleDateString', 'toLocaleTimeString'].map((property) => ({
          property,
          message: 'Dates on screen use formatDate / formatDateTime of lib/format.ts.',
        })),
      ],
    },
  },
  {
    files: ['**/*.test.ts', '**/*.test.tsx', '**/*.testing.ts', 'apps/server/test/**'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
);
