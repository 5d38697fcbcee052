const scratch = new DataView(new ArrayBuffer(8));

/**
 * The IEEE-754 half-precision bits of `v` when the conversion is exact, else -1. NaN maps to the
 * canonical quiet NaN `0x7e00`.
 */
export function toHalfBits(v: number): number {
  if (Number.isNaN(v)) return 0x7e00;
  if (Math.fround(v) !== v) return -1;
  scratch.setFloat32(0, v);
  const bits = scratch.getUint32(0);
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0xff) return mant === 0 ? sign | 0x7c00 : -1;
  if (exp === 0) return mant === 0 ? sign : -1;
  const e = exp - 127;
  if (e > 15) return -1;
  if (e >= -14) {
    if ((mant & 0x1fff) !== 0) return -1;
    return sign | ((e + 15) << 10) | (mant >>> 13);
  }
  if (e < -24) return -1;
  const full = mant | 0x800000;
  const shift = -e - 1;
  if ((full & ((1 << shift) - 1)) !== 0) return -1;
  return sign | (full >>> shift);
}

/** Decodes half-precision bits to a number. */
export function fromHalfBits(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >>> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant === 0 ? sign * Infinity : NaN;
  return sign * (1024 + mant) * 2 ** (exp - 25);
}
