import { describe, expect, it } from 'vitest';
import { parseDelimited, readCallsigns } from './callsign-list';

describe('readCallsigns', () => {
  it('reads one callsign per line, and pasted lists separated by commas or spaces', () => {
    expect(readCallsigns('Alpha1\r\nBravo2\n\n  Charlie3  \n')).toEqual([
      'Alpha1',
      'Bravo2',
      'Charlie3',
    ]);
    expect(readCallsigns('Alpha1, Bravo2;Charlie3 Delta4')).toEqual([
      'Alpha1',
      'Bravo2',
      'Charlie3',
      'Delta4',
    ]);
  });

  it('takes the callsign column of a CSV file, whatever else it holds', () => {
    const csv = [
      '\uFEFFname,Callsign,unit',
      '"Smith, John",Alpha1,1st',
      '"Doe, ""JD"" Jane",Bravo2,"2nd,',
      'HQ"',
      'No callsign,,3rd',
    ].join('\r\n');
    expect(readCallsigns(csv)).toEqual(['Alpha1', 'Bravo2']);
  });

  it('reads semicolon- and tab-separated files (as spreadsheets save them in some locales)', () => {
    expect(readCallsigns('nimi;callsign\nMatti;Kettu1\nLiisa;Karhu2\n')).toEqual([
      'Kettu1',
      'Karhu2',
    ]);
    expect(readCallsigns('callsign\tteam\nEcho5\tRed\n')).toEqual(['Echo5']);
  });

  it('keeps what is not a callsign for the preview to mark', () => {
    expect(readCallsigns('Alpha1\nbad-name\nX')).toEqual(['Alpha1', 'bad-name', 'X']);
  });
});

describe('parseDelimited', () => {
  it('keeps delimiters, line breaks and doubled quotes inside quoted cells', () => {
    expect(parseDelimited('a,"b,c","d\ne","f""g"\n1,2', ',')).toEqual([
      ['a', 'b,c', 'd\ne', 'f"g'],
      ['1', '2'],
    ]);
  });
});
