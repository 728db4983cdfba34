/** The client platforms the guides cover; detection defaults to Android. */
export type Platform = 'MacOS' | 'Windows' | 'Android' | 'iOS' | 'Linux';

export function detectPlatform(userAgent: string = navigator.userAgent, touchPoints = 0): Platform {
  // Android's user agents name Linux too ("Linux; Android 14"): Android is told apart first.
  if (/android/i.test(userAgent)) return 'Android';
  if (/iphone|ipad|ipod/i.test(userAgent)) return 'iOS';
  // iPadOS presents itself as a Mac; only the touch screen tells it apart.
  if (/macintosh|mac os x/i.test(userAgent)) return touchPoints > 1 ? 'iOS' : 'MacOS';
  if (/windows/i.test(userAgent)) return 'Windows';
  if (/linux|x11|cros/i.test(userAgent)) return 'Linux';
  return 'Android';
}

export function detectCurrentPlatform(): Platform {
  return detectPlatform(navigator.userAgent, navigator.maxTouchPoints);
}

/** A phone or tablet, where a TAK app runs on the device that shows the page. */
export function isPhone(platform: Platform): boolean {
  return platform === 'Android' || platform === 'iOS';
}
