import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Plugin } from 'vite';

/** Where the maps of a build into `outDir` go: beside it, `dist` → `dist-sourcemaps`. */
export function sourcemapsDir(outDir: string): string {
  return `${outDir.replace(/[/\\]+$/, '')}-sourcemaps`;
}

/**
 * Keeps the build's source maps out of what the server serves: with `build.sourcemap: 'hidden'`
 * the JavaScript names no map, and this plugin writes each `.map` to `sourcemapsDir(outDir)`
 * (same relative path) instead of `outDir`. The maps stay a build artefact for reading stack
 * traces; nobody can download the app's sources from the portal.
 */
export function sourcemapsPlugin(): Plugin {
  let mapsDir = '';
  return {
    name: 'callsign-sourcemaps',
    apply: 'build',
    configResolved(config) {
      mapsDir = sourcemapsDir(path.resolve(config.root, config.build.outDir));
    },
    buildStart() {
      rmSync(mapsDir, { recursive: true, force: true });
    },
    generateBundle(_options, bundle) {
      for (const fileName of Object.keys(bundle)) {
        const output = bundle[fileName];
        if (!fileName.endsWith('.map') || output?.type !== 'asset') continue;
        const target = path.join(mapsDir, fileName);
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, output.source);
        // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- removing an emitted asset is how a plugin keeps it out of outDir
        delete bundle[fileName];
      }
    },
  };
}
