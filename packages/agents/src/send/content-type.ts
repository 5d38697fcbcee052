import { ContentType, InvalidError, type ContentTypeName } from '@agdx/wire';

/** A content type: its `agdx.ct` code (0..255) or its name (`json`, `cbor`, ...). */
export type ContentTypeLike = number | ContentTypeName;

/** Resolves a content type argument to its u8 code. @throws InvalidError otherwise. */
export function toContentType(value: ContentTypeLike): number {
  if (typeof value === 'number') {
    if (!Number.isInteger(value) || value < 0 || value > 255) {
      throw new InvalidError(`content type code must be an integer 0..255, got ${value}`, { context: { field: 'content_type' } });
    }
    return value;
  }
  const code = (ContentType as Readonly<Record<string, number>>)[value];
  if (code === undefined) throw new InvalidError(`unknown content type \`${String(value)}\``, { context: { field: 'content_type' } });
  return code;
}
