/** The client platforms the guides cover; detection defaults to Android. */
export type Platform = 'MacOS' | 'Windows' | 'Android' | 'iOS';

export function detectPlatform(userAgent: string = navigator.userAgent, touchPoints = 0): Platform {
  if (/android/i.test(userAgent)) return 'Android';
  if (/iphone|ipad|ipod/i.test(userAgent)) return 'iOS';
  // iPadOS presents itself as a Mac; only the touch screen tells it apart.
  if (/macintosh|mac os x/i.test(userAgent)) return touchPoints > 1 ? 'iOS' : 'MacOS';
  if (/windows/i.test(userAgent)) return 'Windows';
  return 'Android';
}

export function detectCurrentPlatform(): Platform {
  return detectPlatform(navigator.userAgent, navigator.maxTouchPoints);
}
