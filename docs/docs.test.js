import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs held against the code: the folder lists of architecture.md, the links between the
// docs, and no citation of a design document a maintainer of this repository cannot open.

const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file) => readFileSync(path.join(ROOT, file), 'utf8');
const architecture = read('docs/architecture.md');

/** The entries directly in `dir`: folders as `name/`, files as they are; tests left out. */
function entriesOf(dir, { files = true } = {}) {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() || (files && !/\.(test|testing)\.tsx?$/.test(entry.name)),
    )
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
}

/** The first code block after `heading`. */
function blockAfter(heading) {
  const at = architecture.indexOf(heading);
  expect(at, `architecture.md has "${heading}"`).toBeGreaterThanOrEqual(0);
  const start = architecture.indexOf('```\n', at) + 4;
  return architecture.slice(start, architecture.indexOf('```', start));
}

/** The names in a tree block's first column (`main.ts, server.ts   start-up: ...`). */
function namesInTree(block) {
  return block
    .split('\n')
    .filter((line) => /^\S/.test(line))
    .flatMap((line) => line.split(/\s{2,}|(?<=\/)\s/)[0].split(/,\s*/))
    .map((name) => name.replace(/<[^>]+>\/$/, ''))
    .sort();
}

/** "a, b (more), and c (x (y))" -> ['a', 'b', 'c']: the list's items without their asides. */
function listItems(text) {
  let bare = text;
  while (/\([^()]*\)/.test(bare)) bare = bare.replace(/\s*\([^()]*\)/g, '');
  return bare
    .split(',')
    .map((item) => item.replace(/^\s*and\s+/, '').trim())
    .filter(Boolean)
    .sort();
}

describe('docs/architecture.md', () => {
  it('names every entry of apps/server/src in its tree, and nothing that is not there', () => {
    const named = namesInTree(blockAfter('## The server (`apps/server/src`)'));
    expect(named).toEqual(entriesOf('apps/server/src'));
  });

  it('lists every server module, and nothing that is not one', () => {
    const from = architecture.indexOf('The modules today');
    const listed = [...architecture.slice(from).matchAll(/^- `([a-z-]+)`:/gm)]
      .map((match) => `${match[1]}/`)
      .sort();
    expect(listed).toEqual(entriesOf('apps/server/src/modules', { files: false }));
  });

  it('names every folder of apps/web/src in its tree, every feature and every admin room', () => {
    const block = blockAfter('## The web app (`apps/web/src`)');
    const top = namesInTree(block).filter((name) => !name.startsWith('features/'));
    expect([...top, 'features/'].sort()).toEqual(
      entriesOf('apps/web/src', { files: false })
        .concat(entriesOf('apps/web/src').filter((name) => /^main\.tsx$/.test(name)))
        .sort(),
    );

    const features = /features\/<f>\/\s+one area each \(([\s\S]*?)\):\n/.exec(block);
    expect(features, 'the features line').not.toBeNull();
    expect(listItems(features[1].replace(/\s+/g, ' ')).map((name) => `${name}/`)).toEqual(
      entriesOf('apps/web/src/features', { files: false }),
    );

    const rooms =
      /features\/admin\/ the admin area in rooms, each with api\/ and components\/: ([\s\S]*?)\n\S/.exec(
        block,
      );
    expect(rooms, 'the admin rooms line').not.toBeNull();
    expect(listItems(rooms[1].replace(/\s+/g, ' ')).map((name) => `${name}/`)).toEqual(
      entriesOf('apps/web/src/features/admin', { files: false }),
    );
  });
});

/** GitHub's anchor for a heading: lower case, punctuation but '-' dropped, spaces to '-'. */
function anchorOf(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsIn(markdown) {
  const anchors = new Set();
  const seen = new Map();
  for (const [, heading] of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const base = anchorOf(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  return anchors;
}

describe('links between the docs', () => {
  const pages = [
    'README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  it.each(pages)('%s links only to files and headings that exist', (page) => {
    const broken = [];
    const text = read(page).replace(/```[\s\S]*?```/g, '');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue; // https:, mailto:
      const [file, anchor] = target.split('#');
      const resolved = file === '' ? page : path.join(path.dirname(page), file);
      if (!existsSync(path.join(ROOT, resolved))) {
        broken.push(`${target}: no file ${resolved}`);
        continue;
      }
      if (
        anchor !== undefined &&
        resolved.endsWith('.md') &&
        !anchorsIn(read(resolved)).has(anchor)
      ) {
        broken.push(`${target}: no heading #${anchor} in ${resolved}`);
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('citations', () => {
  const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((file) => /\.(ts|tsx|js|mjs|md|sh|json|conf|yml|yaml)$/.test(file))
    .filter((file) => file !== 'docs/docs.test.js' && existsSync(path.join(ROOT, file)));

  it('no tracked file cites the design documents outside this repository (product.md)', () => {
    const citing = files.filter((file) => read(file).includes('product.md'));
    expect(citing).toEqual([]);
  });

  it('every docs/<page>.md#<heading> cited in the code names a heading that exists', () => {
    const broken = [];
    for (const file of files.filter((name) => !name.endsWith('.md'))) {
      for (const [cited, page, anchor] of read(file).matchAll(
        /docs\/([a-z-]+\.md)#([a-z0-9-]+)/g,
      )) {
        const target = path.join(ROOT, 'docs', page);
        if (!existsSync(target) || !anchorsIn(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${file}: ${cited}`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
