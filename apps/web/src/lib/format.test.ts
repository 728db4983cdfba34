import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime } from './format';

// A moment of the device's own time zone, so the expected text holds in any zone.
const MOMENT = new Date(2026, 10, 25, 17, 30, 12);

describe('the one date format', () => {
  it('reads a moment as day, month, year and hours:minutes in each language', () => {
    expect(formatDateTime(MOMENT.toISOString(), 'en')).toBe('25 Nov 2026, 17:30');
    expect(formatDateTime(MOMENT.toISOString(), 'en-US')).toBe('25 Nov 2026, 17:30');
    expect(formatDateTime(MOMENT.toISOString(), 'fi')).toBe('25.11.2026 klo 17.30');
  });

  it('reads a day alike, from an ISO text or milliseconds', () => {
    expect(formatDate(MOMENT.toISOString(), 'en')).toBe('25 Nov 2026');
    expect(formatDate(MOMENT.getTime(), 'fi')).toBe('25.11.2026');
  });
});
