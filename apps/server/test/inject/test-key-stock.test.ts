import { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testKeySupply } from '../../src/ca/test-key-stock.testing.js';
import { openInjectPortal, type InjectPortal } from '../support/inject-portal.js';

// The stock the test portals take their members' keys from (test/global-setup.ts): handed out
// as the service's key pool hands out its keys, and really what a test portal's keys are.

const spki = (pem: string) =>
  new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });

describe('the test run’s stock of member key pairs', () => {
  it('gives each supply the whole stock in the same order, each key pair once', async () => {
    const [first, second] = [await testKeySupply(), await testKeySupply()];
    const a = [first?.take('rsa-2048'), first?.take('rsa-2048')];
    const b = second?.take('rsa-2048');
    expect(a[0]?.publicKeyDer).toBeInstanceOf(Buffer);
    expect(a[0]?.publicKeyDer).not.toEqual(a[1]?.publicKeyDer);
    expect(b?.publicKeyDer).toEqual(a[0]?.publicKeyDer);
    expect(a[0]?.privateKey.asymmetricKeyDetails?.modulusLength).toBe(2048);
  });

  it('holds RSA-2048 only: an EC key is made on the request', async () => {
    expect((await testKeySupply())?.take('ecdsa-p256')).toBeUndefined();
  });

  describe('a test portal', () => {
    let portal: InjectPortal;
    beforeAll(async () => {
      portal = await openInjectPortal();
    });
    afterAll(() => portal.destroy());

    it('issues its members the stock’s keys, one each, in order', async () => {
      const stock = await testKeySupply();
      const keys = [await portal.addMember('Stock1'), await portal.addMember('Stock2')];
      expect(spki(keys[0]!.certificatePem)).toEqual(stock?.take('rsa-2048')?.publicKeyDer);
      expect(spki(keys[1]!.certificatePem)).toEqual(stock?.take('rsa-2048')?.publicKeyDer);
    });
  });
});
