import chatSvg from './illustrations/chat.svg';
import commandPostSvg from './illustrations/command-post.svg';
import connectionSvg from './illustrations/connection-indicator.svg';
import fighterSvg from './illustrations/fighter.svg';
import flowSvg from './illustrations/flow.svg';
import importSvg from './illustrations/import-package.svg';
import markersSvg from './illustrations/markers-route.svg';
import selfMarkerSvg from './illustrations/self-marker.svg';
import serverListSvg from './illustrations/server-list.svg';
import storeSvg from './illustrations/app-store.svg';
import teamRoleSvg from './illustrations/team-role.svg';
import windowsSvg from './illustrations/windows-install.svg';
import zipSvg from './illustrations/zip-download.svg';
import { paths } from '../../lib/paths';

/**
 * The TAK guides: which steps each guide has and which cards each step shows. A quickstart goes
 * install, connect (scan a code or import the settings package), check (issue 31).
 * The text of a card is `{section}.{step}.cards.{card}` in the lazily loaded namespace
 * `tak-guides` (`src/locales/{lng}/namespaces/tak-guides.json`: title, image_alt, and any of
 * text, steps, note); only the shape lives here.
 */
export const TAK_GUIDES_NS = 'tak-guides';

export type GuideSection = 'quickstart' | 'usage';
export type GuidePlatform = 'android' | 'ios' | 'win';

export interface GuideCard {
  id: string;
  /** An illustration drawn for this product. */
  image?: string;
  /** The card offers the TAK settings download. */
  download?: boolean;
  /** The card offers one-scan enrollment (the "Connect ATAK or iTAK" codes). */
  enroll?: boolean;
}

export interface GuideStep {
  id: string;
  cards: readonly GuideCard[];
}

export const ILLUSTRATIONS = { flow: flowSvg, commandPost: commandPostSvg, fighter: fighterSvg };

export const TAK_GUIDES: Record<GuideSection, Record<GuidePlatform, readonly GuideStep[]>> = {
  quickstart: {
    android: [
      { id: 'android1', cards: [{ id: 'store', image: storeSvg }, { id: 'first_start' }] },
      {
        id: 'android2',
        cards: [
          { id: 'scan', enroll: true },
          { id: 'download', image: zipSvg, download: true },
          { id: 'contents' },
        ],
      },
      {
        id: 'android3',
        cards: [
          { id: 'import', image: importSvg },
          { id: 'done', image: connectionSvg },
        ],
      },
      {
        id: 'android4',
        cards: [{ id: 'servers', image: serverListSvg }, { id: 'trouble' }],
      },
      {
        id: 'android5',
        cards: [
          { id: 'self', image: selfMarkerSvg },
          { id: 'identity', image: teamRoleSvg },
          { id: 'share', image: chatSvg },
        ],
      },
    ],
    ios: [
      { id: 'ios1', cards: [{ id: 'store', image: storeSvg }, { id: 'first_start' }] },
      {
        id: 'ios2',
        cards: [
          { id: 'scan', enroll: true },
          { id: 'download', image: zipSvg, download: true },
          { id: 'files' },
        ],
      },
      {
        id: 'ios3',
        cards: [
          { id: 'import', image: importSvg },
          { id: 'done', image: connectionSvg },
        ],
      },
      { id: 'ios4', cards: [{ id: 'servers', image: serverListSvg }, { id: 'trouble' }] },
      {
        id: 'ios5',
        cards: [
          { id: 'self', image: selfMarkerSvg },
          { id: 'identity', image: teamRoleSvg },
          { id: 'share', image: chatSvg },
        ],
      },
    ],
    win: [
      { id: 'win1', cards: [{ id: 'get', image: windowsSvg }, { id: 'install' }] },
      {
        id: 'win2',
        cards: [
          { id: 'download', image: zipSvg, download: true },
          { id: 'import', image: importSvg },
        ],
      },
      {
        id: 'win3',
        cards: [{ id: 'servers', image: serverListSvg }, { id: 'trouble' }],
      },
      {
        id: 'win4',
        cards: [
          { id: 'self', image: selfMarkerSvg },
          { id: 'identity', image: teamRoleSvg },
          { id: 'share', image: chatSvg },
        ],
      },
    ],
  },
  usage: {
    android: [
      {
        id: 'android1',
        cards: [
          { id: 'check', image: connectionSvg },
          { id: 'identity', image: teamRoleSvg },
          { id: 'battery' },
        ],
      },
      {
        id: 'android2',
        cards: [
          { id: 'position', image: fighterSvg },
          { id: 'markers', image: markersSvg },
          { id: 'chat', image: chatSvg },
        ],
      },
      { id: 'android3', cards: [{ id: 'disconnect' }, { id: 'lost' }] },
    ],
    ios: [
      {
        id: 'ios1',
        cards: [
          { id: 'install', image: storeSvg },
          { id: 'setup', image: importSvg },
          { id: 'connect', image: connectionSvg },
          { id: 'field', image: markersSvg },
        ],
      },
    ],
    win: [
      {
        id: 'win1',
        cards: [
          { id: 'station', image: commandPostSvg },
          { id: 'identity', image: teamRoleSvg },
          { id: 'location' },
        ],
      },
      {
        id: 'win2',
        cards: [
          { id: 'picture', image: fighterSvg },
          { id: 'markers', image: markersSvg },
          { id: 'routes' },
          { id: 'chat', image: chatSvg },
          { id: 'example', image: flowSvg },
        ],
      },
      { id: 'win3', cards: [{ id: 'send' }, { id: 'packages' }] },
      { id: 'win4', cards: [{ id: 'handover' }, { id: 'close' }] },
    ],
  },
};

export const GUIDE_PLATFORMS: readonly GuidePlatform[] = ['android', 'ios', 'win'];

const SECTION_PATHS = {
  quickstart: { list: paths.tak.quickstart, step: paths.tak.quickstartStep },
  usage: { list: paths.tak.usage, step: paths.tak.usageStep },
} as const;

export function sectionPath(section: GuideSection): string {
  return SECTION_PATHS[section].list.path;
}

export function stepPath(section: GuideSection, step: string): string {
  return SECTION_PATHS[section].step.href(step);
}

export interface StepPlace {
  section: GuideSection;
  platform: GuidePlatform;
  step: GuideStep;
  /** 1-based place of the step in its guide. */
  number: number;
  total: number;
  backPath: string;
  forwardPath: string;
  isLast: boolean;
}

/** Where a step sits: its neighbours, the first step's back and last step's forward lead to the list. */
export function findStep(section: GuideSection, stepId: string): StepPlace | undefined {
  for (const platform of GUIDE_PLATFORMS) {
    const steps = TAK_GUIDES[section][platform];
    const index = steps.findIndex((step) => step.id === stepId);
    const step = steps[index];
    if (step === undefined) continue;
    const previous = steps[index - 1];
    const next = steps[index + 1];
    return {
      section,
      platform,
      step,
      number: index + 1,
      total: steps.length,
      backPath: previous === undefined ? sectionPath(section) : stepPath(section, previous.id),
      forwardPath: next === undefined ? sectionPath(section) : stepPath(section, next.id),
      isLast: next === undefined,
    };
  }
  return undefined;
}
