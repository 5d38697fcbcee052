import { AgentErrorCode, DeadLetterReason, Health, type MetadataValue } from '@agdx/wire';
import { fromHex, toHex } from './fixtures.js';

function byCode(dict: Record<string, number>): Map<number, string> {
  return new Map(Object.entries(dict).map(([name, code]) => [code, name]));
}
const ERROR_NAMES = byCode(AgentErrorCode);
const REASON_NAMES = byCode(DeadLetterReason);
const HEALTH_NAMES = byCode(Health);

/** `{kind: known, name} | {kind: unrecognized, code}` for a dictionary code. */
export function codeToLogical(names: Map<number, string>, code: number): any {
  const name = names.get(code);
  return name === undefined ? { kind: 'unrecognized', code } : { kind: 'known', name };
}

/** The inverse of {@link codeToLogical}. */
export function codeFromLogical(dict: Record<string, number>, logical: any): number {
  return logical.kind === 'known' ? (dict[logical.name] as number) : logical.code;
}

export const errorCodeToLogical = (code: number): any => codeToLogical(ERROR_NAMES, code);
export const reasonToLogical = (code: number): any => codeToLogical(REASON_NAMES, code);
export const healthToLogical = (code: number): any => codeToLogical(HEALTH_NAMES, code);

function f64Hex(n: number): string {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setFloat64(0, n);
  return toHex(b);
}

/** Oracle logical value (`{type, value, f64_hex?}`) → MetadataValue. */
export function valueFromLogical(v: any): MetadataValue {
  switch (v.type) {
    case 'string':
      return v.value;
    case 'int':
      return BigInt(v.value);
    case 'float':
      return new DataView(fromHex(v.f64_hex).buffer).getFloat64(0);
    case 'bool':
      return v.value;
    case 'null':
      return null;
    case 'list':
      return v.value.map(valueFromLogical);
    default:
      throw new Error(`unhandled value type ${v.type}`);
  }
}

/** MetadataValue → oracle logical value. */
export function valueToLogical(v: MetadataValue): any {
  if (v === null) return { type: 'null' };
  if (typeof v === 'string') return { type: 'string', value: v };
  if (typeof v === 'boolean') return { type: 'bool', value: v };
  if (typeof v === 'bigint') return { type: 'int', value: v.toString() };
  if (typeof v === 'number') {
    const special = Number.isNaN(v) ? 'NaN' : v === Infinity ? 'Infinity' : v === -Infinity ? '-Infinity' : Object.is(v, -0) ? '-0' : undefined;
    return { type: 'float', f64_hex: f64Hex(v), value: special ?? v };
  }
  return { type: 'list', value: (v as readonly MetadataValue[]).map(valueToLogical) };
}
