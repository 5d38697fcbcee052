import { CodecError, InvalidError } from '../errors.js';
import { logPositionAt, logPositionLengthError, type LogPosition } from '../ids/log-position.js';
import { idAt, type MachineId, type MachineIdClass } from '../ids/machine-id.js';
import { CborFormatError, CborReader, MAJOR_BYTES, MAJOR_MAP, MAJOR_NINT, MAJOR_SIMPLE, MAJOR_TEXT, MAJOR_UINT, MAX_DEPTH } from './reader.js';

/** Where envelope decode errors are reported (`field `x` in agent envelope …`). @internal */
export const SURFACE = 'agent envelope';

/** A field-naming CodecError (`context.field` = the field). @internal */
export function shape(message: string, surface: string, operation: string): CodecError {
  return new CodecError(message, { context: { surface, operation, field: operation } });
}

/** Reads a byte string field (a copy). @internal */
export function expectBytes(r: CborReader, field: string, surface: string = SURFACE): Uint8Array {
  r.head();
  if (r.major !== MAJOR_BYTES) throw shape(`field \`${field}\` in ${surface} must be bytes`, surface, field);
  return r.bytesPayload();
}

/**
 * Reads a 20-byte log position field straight from the input (no copy, no view).
 * @throws InvalidError unless the payload is 20 bytes, as `LogPosition.fromBytes` would. @internal
 */
export function expectLogPosition(r: CborReader, field: string): LogPosition {
  r.head();
  if (r.major !== MAJOR_BYTES) throw shape(`field \`${field}\` in ${SURFACE} must be bytes`, SURFACE, field);
  const n = r.arg;
  r.need(n);
  if (n !== 20) throw logPositionLengthError(n);
  const position = logPositionAt(r.buf, r.pos);
  r.pos += 20;
  return position;
}

/** Reads a 16-byte id field. @internal */
export function expectId<T extends MachineId>(r: CborReader, cls: MachineIdClass<T>, field: string): T {
  r.head();
  if (r.major !== MAJOR_BYTES) throw shape(`field \`${field}\` in ${SURFACE} must be bytes`, SURFACE, field);
  return readId(r, cls, field);
}

/**
 * The id in the payload of the byte-string head just read, straight from the input (no array made).
 * @throws InvalidError unless the payload is 16 bytes, as the id constructors would. @internal
 */
export function readId<T extends MachineId>(r: CborReader, cls: MachineIdClass<T>, field: string): T {
  const n = r.arg;
  r.need(n);
  if (n !== 16) throw new InvalidError(`id bytes must be 16 bytes, got ${n}`, { context: { got: n, field } });
  const id = idAt(cls, r.buf, r.pos);
  r.pos += 16;
  return id;
}

/** Reads a text field. @internal */
export function expectText(r: CborReader, field: string): string {
  r.head();
  if (r.major !== MAJOR_TEXT) throw shape(`field \`${field}\` in ${SURFACE} must be a string`, SURFACE, field);
  return r.textPayload();
}

/** Reads a u64 field from a plain CBOR unsigned integer only. @internal */
export function expectU64(r: CborReader, field: string, surface: string = SURFACE): bigint {
  r.head();
  if (r.major === MAJOR_UINT) return r.argBig();
  if (r.major === MAJOR_NINT && (r.bigArg !== undefined || r.arg >= Number.MAX_SAFE_INTEGER - 1)) {
    throw shape(`field \`${field}\` in ${surface} must fit u64`, surface, field);
  }
  throw shape(`field \`${field}\` in ${surface} must be an unsigned integer`, surface, field);
}

/** Reads an unsigned integer field at most `max`. @internal */
export function expectSmallUint(r: CborReader, field: string, max: number, surface: string = SURFACE): number {
  r.head();
  if (r.major === MAJOR_UINT && r.bigArg === undefined && r.arg <= max) return r.arg;
  throw shape(`field \`${field}\` in ${surface} must be an unsigned integer at most ${max}`, surface, field);
}

/** Reads a boolean field. @internal */
export function expectBool(r: CborReader, field: string): boolean {
  r.head();
  if (r.major === MAJOR_SIMPLE && (r.info === 20 || r.info === 21)) return r.info === 21;
  throw shape(`field \`${field}\` in ${SURFACE} must be a boolean`, SURFACE, field);
}

/**
 * Reads a map head (count, or -1 when indefinite) after checking it against the map's own cap
 * (`checkCount`, when the map has one) and then against the input and the item budget. @internal
 */
export function expectMap(r: CborReader, surface: string, depth: number, checkCount?: (count: number) => void): number {
  if (depth > MAX_DEPTH) throw new CborFormatError('nesting too deep');
  r.head();
  if (r.major !== MAJOR_MAP) throw shape(`expected a CBOR map for ${surface}`, surface, 'expect-map');
  const count = r.arg;
  if (count > 0) {
    checkCount?.(count);
    r.fits(count * 2);
  }
  return count;
}

/** True while a map (definite `count`, or indefinite when `count` < 0) has another entry at index `i`. */
export function more(r: CborReader, count: number, i: number): boolean {
  return count < 0 ? !r.takeBreak() : i < count;
}

/** The duplicate-key failure. @internal */
export function repeat(key: string): CborFormatError {
  return new CborFormatError(`found repeat map key ${JSON.stringify(key)}`);
}

/**
 * Duplicate detection for keys that are not known fields (known fields use a bit mask): text keys by
 * value, other keys by their exact bytes.
 */
export function rememberUnknown(seen: Set<string> | undefined, r: CborReader, key: string | undefined): Set<string> {
  const set = seen ?? new Set<string>();
  const id = key === undefined ? `r${r.rawKey}` : `t${key}`;
  if (set.has(id)) throw repeat(id.slice(1));
  set.add(id);
  return set;
}

/** Marks a known field's bit, refusing a second occurrence. */
export function mark(bits: number, bit: number, key: string): number {
  if ((bits & bit) !== 0) throw repeat(key);
  return bits | bit;
}
