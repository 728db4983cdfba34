// Section 3: the web app. Builds its own copy (never into apps/web/dist), reads Vite's manifest
// for what each route loads (initial JS and CSS, gzip), and runs Lighthouse with Debian's
// Chromium against public pages served by the real portal.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { benchDir, fmt, kb, loadAverage, repoDir, run, startChild, table } from '../lib/common.mjs';

const portalScript = new URL('../lib/portal-process.mjs', import.meta.url).pathname;
const LOGIN_BUDGET_BYTES = 70 * 1024;

/** Which route loads which lazy entry of the router (apps/web/src/app/router.tsx). */
const ROUTES_OF = {
  'src/app/routes/enrollment-route.tsx': '/login/enrollment',
  'src/app/routes/create-mtls-route.tsx': '/login/createmtls',
  'src/app/routes/member-route.tsx': '/app/users/{callsign}/*',
  'src/app/routes/admin-pages.tsx': '/app/admin/*',
  'src/guides/tak/quickstart-list.tsx': '/app/services/tak/quickstart',
  'src/guides/tak/usage-overview.tsx': '/app/services/tak/usage',
  'src/guides/tak/guide-step-page.tsx': '/app/services/tak/{quickstart,usage}/{step}',
  'src/lib/response-schemas.ts': 'every page, with its first API call (the contract schemas, zod)',
};

/**
 * @typedef {{ file: string, isEntry?: boolean, isDynamicEntry?: boolean, imports?: string[], dynamicImports?: string[], css?: string[] }} Chunk
 */

/**
 * @param {{ quick: boolean, workDir: string, log: (line: string) => void }} context
 */
export async function webSection({ quick, workDir, log }) {
  const loadBefore = loadAverage();
  const outDir = path.join(workDir, 'web');
  log('  building the web app into a private directory');
  const buildStart = performance.now();
  await run(
    'npx',
    ['vite', 'build', '--outDir', outDir, '--emptyOutDir', '--manifest', '--logLevel', 'warn'],
    {
      cwd: path.join(repoDir, 'apps/web'),
    },
  );
  const buildSeconds = (performance.now() - buildStart) / 1000;

  /** @type {Record<string, Chunk>} */
  const manifest = JSON.parse(await readFile(path.join(outDir, '.vite/manifest.json'), 'utf8'));
  /** @type {Map<string, number>} */
  const gzipCache = new Map();
  const gz = async (/** @type {string} */ file) => {
    const cached = gzipCache.get(file);
    if (cached !== undefined) return cached;
    const size = gzipSync(await readFile(path.join(outDir, file))).length;
    gzipCache.set(file, size);
    return size;
  };
  /** The chunk and everything it imports statically, as manifest keys. */
  const closure = (/** @type {string} */ key, seen = new Set()) => {
    if (seen.has(key)) return seen;
    seen.add(key);
    for (const next of manifest[key]?.imports ?? []) closure(next, seen);
    return seen;
  };
  /** @param {Set<string>} keys @param {Set<string>} [already] */
  const weigh = async (keys, already = new Set()) => {
    let js = 0;
    let css = 0;
    const cssFiles = new Set();
    for (const key of keys) {
      if (already.has(key)) continue;
      js += await gz(manifest[key].file);
      for (const file of manifest[key].css ?? []) cssFiles.add(file);
    }
    for (const file of cssFiles) css += await gz(file);
    return { js, css };
  };
  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (entryKey === undefined) throw new Error('the manifest names no entry');
  const initialKeys = closure(entryKey);
  const initial = await weigh(initialKeys);
  /** @type {(string | number)[][]} */
  const rows = [
    [
      '`/login`, `/login/callsign`, `/error` (initial load, every route)',
      kb(initial.js),
      kb(initial.css),
      '',
      initial.js <= LOGIN_BUDGET_BYTES ? 'met' : '**missed**',
    ],
  ];
  /** @type {Record<string, unknown>} */
  const routes = { initial };
  for (const [key, chunk] of Object.entries(manifest)) {
    if (!chunk.isDynamicEntry) continue;
    const lazy = await weigh(closure(key), initialKeys);
    const route = ROUTES_OF[/** @type {keyof typeof ROUTES_OF} */ (key)];
    routes[key] = lazy;
    rows.push([
      route ? `\`${route}\` (\`${path.basename(key)}\`)` : `lazy \`${key}\``,
      `+${kb(lazy.js)}`,
      `+${kb(lazy.css)}`,
      kb(initial.js + lazy.js),
      '',
    ]);
  }
  const allJs = await weigh(
    new Set(Object.keys(manifest).filter((k) => manifest[k].file.endsWith('.js'))),
  );

  // Lighthouse against the real portal serving this build.
  /** @type {(string | number)[][]} */
  const lighthouseRows = [];
  /** @type {Record<string, unknown>} */
  const lighthouse = {};
  const lighthouseBin = path.join(benchDir, 'node_modules/.bin/lighthouse');
  const chromium = process.env.CHROME_PATH ?? '/usr/bin/chromium';
  let lighthouseNote = '';
  if (!existsSync(chromium)) {
    lighthouseNote = `Lighthouse skipped: no Chromium at ${chromium} (set CHROME_PATH).`;
  } else {
    const portal = await startChild(portalScript, [
      JSON.stringify({
        dataDir: path.join(workDir, 'web-data'),
        webDir: outDir,
        active: 0,
        pending: 0,
      }),
    ]);
    try {
      const origin = `https://${portal.info.host}:${portal.info.port}`;
      const pages = quick ? ['/login'] : ['/login', '/error?code=mtls_fail'];
      for (const page of pages) {
        log(`  lighthouse ${page}`);
        const output = path.join(workDir, `lighthouse-${pages.indexOf(page)}.json`);
        // Lighthouse now and then loses the trace of a page load (NO_NAVSTART): try again.
        let failure = '';
        for (let attempt = 1; attempt <= 3; attempt++) {
          try {
            await run(
              lighthouseBin,
              [
                `${origin}${page}`,
                `--chrome-path=${chromium}`,
                '--chrome-flags=--headless --no-sandbox --disable-gpu --ignore-certificate-errors',
                '--only-categories=performance,accessibility',
                '--output=json',
                `--output-path=${output}`,
                '--quiet',
              ],
              { env: { ...process.env, CHROME_PATH: chromium } },
            );
            failure = '';
            break;
          } catch (error) {
            failure = error instanceof Error ? error.message : String(error);
            log(`  lighthouse ${page}: attempt ${attempt} failed`);
          }
        }
        if (failure !== '') {
          lighthouse[page] = { failure };
          lighthouseRows.push([
            `\`${page}\``,
            `failed: ${failure.slice(-160)}`,
            '',
            '',
            '',
            '',
            '',
            '',
          ]);
          continue;
        }
        const report = JSON.parse(await readFile(output, 'utf8'));
        const audit = (/** @type {string} */ id) => report.audits[id]?.numericValue;
        const figures = {
          performance: Math.round(report.categories.performance.score * 100),
          accessibility: Math.round(report.categories.accessibility.score * 100),
          fcpMs: audit('first-contentful-paint'),
          lcpMs: audit('largest-contentful-paint'),
          tbtMs: audit('total-blocking-time'),
          cls: audit('cumulative-layout-shift'),
          transferBytes: audit('total-byte-weight'),
          formFactor: report.configSettings.formFactor,
        };
        lighthouse[page] = figures;
        lighthouseRows.push([
          `\`${page}\``,
          figures.performance,
          figures.accessibility,
          fmt(figures.fcpMs, 0),
          fmt(figures.lcpMs, 0),
          fmt(figures.tbtMs, 0),
          fmt(figures.cls, 3),
          kb(figures.transferBytes),
        ]);
      }
    } finally {
      await portal.stop();
    }
  }
  const loadAfter = loadAverage();
  const markdown = [
    '## 3. Web',
    '',
    `Load average before: ${loadBefore}; after: ${loadAfter}. Own build (\`vite build --manifest\` into a temporary directory, ${fmt(buildSeconds, 0)} s). Sizes are gzip (zlib default level) of the files the route loads: the entry with its static imports, and for each lazy route what it adds on top. All JavaScript of the build: ${kb(allJs.js)} gzip.`,
    '',
    table(
      ['route', 'JS gzip', 'CSS gzip', 'JS total on that route', 'budget (login ≤ 70 KB JS)'],
      rows,
    ),
    '',
    lighthouseNote ||
      `Lighthouse${quick ? ' (quick: login only)' : ''} with ${chromium} headless, default mobile profile with simulated throttling, against the portal serving this build:`,
    '',
    ...(lighthouseRows.length
      ? [
          table(
            [
              'page',
              'performance',
              'accessibility',
              'FCP ms',
              'LCP ms',
              'TBT ms',
              'CLS',
              'transferred',
            ],
            lighthouseRows,
          ),
          '',
          'The guide pages (`/app/services/tak/*`) live on the mTLS face and need a client certificate; headless Chromium under Lighthouse cannot present one without a machine-wide policy, so the public `/error` page stands in. Their lazy chunk size is in the table above.',
          '',
        ]
      : []),
    `- Budget "login initial JS ≤ 70 KB gzip": ${kb(initial.js)} → ${initial.js <= LOGIN_BUDGET_BYTES ? '**met**' : '**missed**'}.`,
    '',
  ].join('\n');
  return {
    markdown,
    results: { buildSeconds, routes, allJs, lighthouse, loadBefore, loadAfter },
  };
}
