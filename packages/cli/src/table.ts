/** Plain-text tables for terminal output. */

import { printable } from './printable.js';

/**
 * Renders rows under a header, each column padded to its widest cell. Cells hold text from the
 * log (labels, agent names, summaries), so their control characters are escaped: a cell is
 * always one line and sends the terminal nothing.
 */
export function renderTable(header: readonly string[], cellRows: readonly (readonly string[])[]): string {
  const rows = cellRows.map((row) => row.map(printable));
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)));
  const render = (cells: readonly string[]): string =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return [render(header), render(widths.map((w) => '-'.repeat(w))), ...rows.map(render)].join('\n');
}

/** Epoch microseconds as an ISO time without milliseconds, or `-`. */
export function microsToIso(micros: bigint | undefined): string {
  if (micros === undefined) return '-';
  return new Date(Number(micros / 1000n)).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
