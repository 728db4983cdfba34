import type { InstructionsResponse } from '@callsign/contract';
import type { TakPackageBuilder } from '../../tak/member-packages.js';
import { zipDataUrl } from '../../tak/packages.js';
import type { Actor } from '../auth/actor.js';

/** What a valid user gets to set up their TAK clients (product.md §4, §6). */
export class InstructionsService {
  constructor(private readonly packages: TakPackageBuilder) {}

  /** Mints one certificate for the caller and returns the three zips as data URLs. */
  async forUser(actor: Actor): Promise<InstructionsResponse> {
    const built = await this.packages.build(actor.callsign, {
      actor: actor.callsign,
      clientAddress: actor.clientAddress,
    });
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
