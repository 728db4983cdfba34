import type { InstructionsResponse } from '@callsign/contract';
import { zipDataUrl } from '../../tak/packages.js';
import type { Actor } from '../auth/actor.js';
import type { TakPackageService } from '../tak/service.js';

/** What a valid user gets to set up their TAK clients (docs/api.md). */
export class InstructionsService {
  constructor(private readonly packages: TakPackageService) {}

  /** Mints one certificate for the caller and returns the three zips as data URLs. */
  async forUser(actor: Actor): Promise<InstructionsResponse> {
    const built = await this.packages.build(actor.callsign, actor);
    return {
      files: {
        tak: built.packages.map((item) => ({
          title: item.title,
          filename: item.filename,
          data: zipDataUrl(item.zip),
        })),
      },
    };
  }
}
