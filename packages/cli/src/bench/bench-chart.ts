/** An SVG bar chart of the benchmark ratios, readable without a browser script. */

import type { RatioRow } from './bench-report.js';

function escapeXml(text: string): string {
  return text.replace(/[<>&"']/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[c] ?? c);
}

/**
 * Horizontal bars on a log10 axis (ratios span orders of magnitude), with a line at 1 (parity
 * with the baseline). Each bar is labelled with its benchmark, metric and value.
 */
export function ratioChartSvg(rows: readonly RatioRow[], title: string): string {
  const positive = rows.filter((row) => row.ratio > 0);
  const labelWidth = 580;
  const plotWidth = 420;
  const rowHeight = 22;
  const top = 48;
  const height = top + Math.max(1, positive.length) * rowHeight + 40;
  const width = labelWidth + plotWidth + 90;
  const logs = positive.map((row) => Math.log10(row.ratio));
  const min = Math.floor(Math.min(-1, ...logs));
  const max = Math.ceil(Math.max(1, ...logs));
  const x = (ratio: number): number => labelWidth + ((Math.log10(ratio) - min) / (max - min)) * plotWidth;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<text x="12" y="22" font-size="15" font-weight="600">${escapeXml(title)}</text>`,
    `<text x="12" y="38" fill="#5b6475">ratio of our figure to its baseline, log scale; the line marks 1 (parity). Each bench says whether higher or lower is better.</text>`,
  ];
  for (let tick = min; tick <= max; tick++) {
    const tx = x(10 ** tick);
    parts.push(`<line x1="${tx}" y1="${top - 4}" x2="${tx}" y2="${height - 30}" stroke="${tick === 0 ? '#1d2330' : '#e3e6ec'}" stroke-width="${tick === 0 ? 1.5 : 1}"/>`);
    parts.push(`<text x="${tx}" y="${height - 14}" text-anchor="middle" fill="#5b6475">${escapeXml(formatTick(tick))}</text>`);
  }
  positive.forEach((row, index) => {
    const y = top + index * rowHeight;
    const from = x(1);
    const to = x(row.ratio);
    const label = `${row.bench} · ${row.metric}`;
    parts.push(`<text x="${labelWidth - 8}" y="${y + 15}" text-anchor="end">${escapeXml(label.length > 84 ? `${label.slice(0, 83)}…` : label)}</text>`);
    parts.push(`<rect x="${Math.min(from, to)}" y="${y + 4}" width="${Math.max(1, Math.abs(to - from))}" height="${rowHeight - 8}" fill="${row.ratio >= 1 ? '#5b8def' : '#f0a35b'}"/>`);
    parts.push(`<text x="${Math.max(from, to) + 6}" y="${y + 15}" fill="#1d2330">${escapeXml(Number(row.ratio.toPrecision(3)).toString())}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}

function formatTick(power: number): string {
  if (power >= 0) return `${10 ** power}`;
  return `1/${10 ** -power}`;
}
