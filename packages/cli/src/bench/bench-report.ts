/**
 * Reading benchmark results: every bench prints one JSON object whose shape its author chose, so
 * the report looks for the conventional parts (`ours`, `baseline`, and anything named `ratio`)
 * wherever they are, instead of assuming one layout.
 */

/** One comparison found in a result: a ratio of ours to a baseline. */
export interface RatioRow {
  /** The benchmark (file name without `.bench.ts`). */
  readonly bench: string;
  /** The dotted path of the ratio inside the result. */
  readonly metric: string;
  /** The ratio. */
  readonly ratio: number;
}

/** One headline figure: ours or a baseline. */
export interface FigureRow {
  /** The benchmark. */
  readonly bench: string;
  /** `ours` or `baseline`. */
  readonly side: 'ours' | 'baseline';
  /** The dotted path of the figure under its side. */
  readonly metric: string;
  /** The value. */
  readonly value: number;
}

function leaves(value: unknown, path: string, out: [string, number][], depth: number = 0): void {
  if (depth > 8) return;
  if (typeof value === 'number' && Number.isFinite(value)) out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((inner, index) => leaves(inner, path === '' ? String(index) : `${path}.${index}`, out, depth + 1));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) leaves(inner, path === '' ? key : `${path}.${key}`, out, depth + 1);
  }
}

/** Every numeric leaf whose path names a ratio. */
export function ratiosOf(bench: string, result: unknown): RatioRow[] {
  const all: [string, number][] = [];
  leaves(result, '', all);
  return all.filter(([path]) => /ratio/i.test(path) || /(^|\.)vs[A-Z]|Vs[A-Z]/.test(path)).map(([metric, ratio]) => ({ bench, metric, ratio }));
}

/**
 * Headline figures: the numeric leaves under top-level `ours` and `baseline` (or `baselines`)
 * objects, and, inside any object that holds a number named `*baseline*`, that number as a
 * baseline and its numeric siblings (ratios aside) as ours.
 */
export function figuresOf(bench: string, result: unknown): FigureRow[] {
  if (typeof result !== 'object' || result === null) return [];
  const rows: FigureRow[] = [];
  for (const [key, value] of Object.entries(result)) {
    const side = key === 'ours' ? 'ours' : key === 'baseline' || key === 'baselines' ? 'baseline' : undefined;
    if (side === undefined) continue;
    const found: [string, number][] = [];
    leaves(value, '', found);
    for (const [metric, number] of found) rows.push({ bench, side, metric, value: number });
  }
  const visit = (value: unknown, path: string, depth: number): void => {
    if (depth > 8 || typeof value !== 'object' || value === null) return;
    if (Array.isArray(value)) {
      value.forEach((inner, index) => visit(inner, path === '' ? String(index) : `${path}.${index}`, depth + 1));
      return;
    }
    if (depth > 0 && (path === 'ours' || path === 'baseline' || path === 'baselines')) return;
    const entries = Object.entries(value);
    const numeric = entries.filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]));
    if (numeric.some(([key]) => /baseline/i.test(key))) {
      for (const [key, number] of numeric) {
        if (/ratio/i.test(key) || /(^|\.)vs[A-Z]|Vs[A-Z]/.test(key)) continue;
        rows.push({ bench, side: /baseline/i.test(key) ? 'baseline' : 'ours', metric: path === '' ? key : `${path}.${key}`, value: number });
      }
    }
    for (const [key, inner] of entries) visit(inner, path === '' ? key : `${path}.${key}`, depth + 1);
  };
  visit(result, '', 0);
  return rows;
}

/** A number for a table cell: thousands separators, at most three significant decimals. */
export function formatNumber(value: number): string {
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  return Number(value.toPrecision(3)).toString();
}
