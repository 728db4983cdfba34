// The physical limits the hot-path figures are read against, measured on this machine in the
// bench process, one core each: RSA-2048 key generations a second (what a key download or a
// burst of them costs at least) and private-key signatures a second with the run's issuing CA
// key (what a signed OCSP answer, a certificate or a CRL costs at least).
import { createPrivateKey, generateKeyPair, sign } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { fmt, loadAverage, mean } from './common.mjs';

const generate = promisify(generateKeyPair);

/**
 * @typedef {{ keygensPerSecond: number, keygenMsMean: number, keygens: number,
 *   signaturesPerSecond: number, signatures: number, caKey: string,
 *   loadBefore: string, loadAfter: string }} Limits
 */

/** @type {Promise<Limits> | undefined} */
let measured;

/**
 * Measured once per run (the sections that quote them share the figures).
 * @param {{ quick: boolean, log: (line: string) => void }} context
 * @returns {Promise<Limits>}
 */
export function physicalLimits(context) {
  measured ??= measure(context);
  return measured;
}

/** @param {{ quick: boolean, log: (line: string) => void }} context */
async function measure({ quick, log }) {
  const loadBefore = loadAverage();
  // One at a time: libuv runs each generation on one thread, so this is one core's rate.
  const keygens = quick ? 6 : 40;
  /** @type {number[]} */
  const keygenMs = [];
  for (let i = 0; i < keygens; i++) {
    const start = performance.now();
    await generate('rsa', { modulusLength: 2048, publicExponent: 0x10001 });
    keygenMs.push(performance.now() - start);
  }
  const caDir = process.env.BENCH_CA_TEMPLATE;
  if (caDir === undefined) throw new Error('BENCH_CA_TEMPLATE is not set (run.mjs sets it)');
  const key = createPrivateKey(await readFile(path.join(caDir, 'issuing-ca-key.pem'), 'utf8'));
  const details = key.asymmetricKeyDetails ?? {};
  const caKey = `${key.asymmetricKeyType?.toUpperCase()}${details.modulusLength ? `-${details.modulusLength}` : details.namedCurve ? ` ${details.namedCurve}` : ''}`;
  // Synchronous signing on this thread for a fixed time: one core's rate, SHA-256 as the CA signs.
  const data = Buffer.alloc(1_000, 7);
  const until = performance.now() + (quick ? 500 : 3_000);
  const signStart = performance.now();
  let signatures = 0;
  while (performance.now() < until) {
    sign('sha256', data, key);
    signatures++;
  }
  const signSeconds = (performance.now() - signStart) / 1000;
  const limits = {
    keygensPerSecond: 1000 / mean(keygenMs),
    keygenMsMean: mean(keygenMs),
    keygens,
    signaturesPerSecond: signatures / signSeconds,
    signatures,
    caKey,
    loadBefore,
    loadAfter: loadAverage(),
  };
  log(
    `  limits: ${fmt(limits.keygensPerSecond, 1)} RSA-2048 keys/s, ${fmt(limits.signaturesPerSecond, 0)} ${caKey} signatures/s per core (load ${limits.loadBefore} → ${limits.loadAfter})`,
  );
  return limits;
}

/**
 * The limits as one markdown paragraph for a section.
 * @param {Limits} limits
 */
export function limitsParagraph(limits) {
  return (
    `Physical limits on this machine, one core each (measured in the bench process): ` +
    `**${fmt(limits.keygensPerSecond, 1)} RSA-2048 key generations a second** ` +
    `(mean ${fmt(limits.keygenMsMean, 0)} ms of ${limits.keygens}), ` +
    `**${fmt(limits.signaturesPerSecond, 0)} signatures a second with the issuing CA's ${limits.caKey} key** ` +
    `(${fmt(1000 / limits.signaturesPerSecond, 2)} ms each, SHA-256). Load average ${limits.loadBefore} → ${limits.loadAfter}.`
  );
}
