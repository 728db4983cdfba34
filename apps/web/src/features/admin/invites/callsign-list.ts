/**
 * Reads the callsigns of a pasted list or an uploaded file: a CSV (or semicolon- or
 * tab-separated) file whose first row names a `callsign` column gives that column; anything else
 * is one callsign per line (or several, separated by commas, semicolons or spaces). Empty entries
 * are left out; nothing is judged here (the preview marks what cannot be used).
 */
export function readCallsigns(text: string): string[] {
  const clean = text.replace(/^\uFEFF/, '');
  const firstLine = clean.split(/\r?\n/, 1)[0] ?? '';
  const delimiter = [',', ';', '\t'].find((candidate) => firstLine.includes(candidate));
  if (delimiter !== undefined) {
    const [header = [], ...rows] = parseDelimited(clean, delimiter);
    const column = header.findIndex((name) => name.trim().toLowerCase() === 'callsign');
    if (column >= 0) {
      return rows.map((row) => (row[column] ?? '').trim()).filter((value) => value !== '');
    }
  }
  return clean.split(/[\s,;]+/).filter((value) => value !== '');
}

/**
 * Rows of delimited text as RFC 4180 has them: quoted cells may hold the delimiter, line breaks
 * and doubled quotes.
 */
export function parseDelimited(text: string, delimiter: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text.charAt(index);
    if (quoted) {
      if (char !== '"') cell += char;
      else if (text[index + 1] === '"') {
        cell += '"';
        index += 1;
      } else quoted = false;
    } else if (char === '"' && cell === '') quoted = true;
    else if (char === delimiter) {
      row.push(cell);
      cell = '';
    } else if (char === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else if (char !== '\r') cell += char;
  }
  if (cell !== '' || row.length > 0) rows.push([...row, cell]);
  return rows;
}
