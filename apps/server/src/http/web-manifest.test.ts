import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebManifest } from './web-manifest.js';

let brandingDir: string;

beforeAll(async () => {
  brandingDir = await mkdtemp(path.join(os.tmpdir(), 'branding-'));
  await mkdir(path.join(brandingDir, 'locales', 'en'), { recursive: true });
});

afterAll(() => rm(brandingDir, { recursive: true, force: true }));

async function manifest() {
  const app = Fastify();
  registerWebManifest(app, brandingDir);
  const response = await app.inject({ url: '/manifest.webmanifest' });
  await app.close();
  return response;
}

describe('the web app manifest', () => {
  it("carries the branding set's deployment name, read on each request, and the icons", async () => {
    const file = path.join(brandingDir, 'locales', 'en', 'dynamic.json');
    await writeFile(file, JSON.stringify({ deployment_name: 'Pohjoinen ryhmä' }));
    const first = await manifest();
    expect(first.headers['content-type']).toBe('application/manifest+json; charset=utf-8');
    expect(first.headers['cache-control']).toBe('no-cache');
    const body = first.json<{ name: string; short_name: string; icons: { sizes: string }[] }>();
    expect(body).toMatchObject({ name: 'Pohjoinen ryhmä', short_name: 'Pohjoinen ryhmä' });
    expect(body.icons.map((icon) => icon.sizes)).toEqual(['any', '192x192', '512x512']);

    await writeFile(file, JSON.stringify({ deployment_name: 'Etelä' }));
    expect((await manifest()).json()).toMatchObject({ name: 'Etelä' });
  });

  it('falls back to the product name when the branding has none', async () => {
    await writeFile(path.join(brandingDir, 'locales', 'en', 'dynamic.json'), '{}');
    expect((await manifest()).json()).toMatchObject({ name: 'Callsign Portal' });
  });
});
