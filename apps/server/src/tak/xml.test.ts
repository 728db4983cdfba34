import { describe, expect, it } from 'vitest';
import { escapeXml } from './xml.js';

describe('escapeXml', () => {
  it('escapes the five XML special characters and nothing else', () => {
    expect(escapeXml(`a&b<c>d"e'f`)).toBe('a&amp;b&lt;c&gt;d&quot;e&apos;f');
    expect(escapeXml('&amp;')).toBe('&amp;amp;');
    expect(escapeXml('Grüße 東京')).toBe('Grüße 東京');
  });

  it('refuses characters XML 1.0 cannot carry', () => {
    expect(() => escapeXml('bell\u0007')).toThrow(TypeError);
    expect(() => escapeXml('\uFFFE')).toThrow(TypeError);
  });
});
