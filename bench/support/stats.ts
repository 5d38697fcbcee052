// Summary statistics every benchmark reports.

/** The median (the mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** The nearest-rank `p`th percentile (0..100). */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

/** Median, minimum and maximum of `values`, rounded to `digits` decimals. */
export function spread(values: readonly number[], digits = 2): { median: number; min: number; max: number; n: number } {
  const f = 10 ** digits;
  const r = (n: number): number => Math.round(n * f) / f;
  return { median: r(median(values)), min: r(Math.min(...values)), max: r(Math.max(...values)), n: values.length };
}
