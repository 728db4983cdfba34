import type { Config } from '../../config.js';
import type { TakSettings } from '../../tak/packages.js';

/**
 * The TAK settings of this portal, read once from the configuration: what the packages and TAK
 * enrollment write into a client's connection and truststore.
 */
export interface TakSiteSettings extends TakSettings {
  /** The operator's TAK truststore (`PORTAL_TAK_TRUSTSTORE_PEM`). */
  truststorePemFile: string | undefined;
}

export function takSiteSettings(config: Config): TakSiteSettings {
  return {
    takHost: config.takHost,
    takPort: config.takPort,
    deployment: config.deployment,
    truststorePassword: config.takTruststorePassword,
    truststorePemFile: config.takTruststorePemFile,
  };
}
