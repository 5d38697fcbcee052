/** Body content types, carried as the `agdx.ct` u8 header. There is no text type: `raw` is bytes. */
export const ContentType: {
  readonly raw: 0;
  readonly json: 1;
  readonly msgpack: 2;
  readonly cbor: 3;
  readonly bson: 4;
  readonly avro: 5;
  readonly protobuf: 6;
  readonly arrow: 7;
  readonly ref: 8;
  readonly any: 255;
} = {
  raw: 0,
  json: 1,
  msgpack: 2,
  cbor: 3,
  bson: 4,
  avro: 5,
  protobuf: 6,
  arrow: 7,
  ref: 8,
  any: 255,
};

/** A known content type code. */
export type ContentType = (typeof ContentType)[keyof typeof ContentType];

/** A known content type name. */
export type ContentTypeName = keyof typeof ContentType;

const BY_CODE: ReadonlyMap<number, ContentTypeName> = new Map(
  (Object.entries(ContentType) as [ContentTypeName, number][]).map(([name, code]) => [code, name]),
);

/** The known content type with this code, or `undefined`. */
export function contentTypeFromCode(code: number): ContentType | undefined {
  return BY_CODE.has(code) ? (code as ContentType) : undefined;
}

/** The name of a known code (`'json'`), or `undefined`. */
export function contentTypeName(code: number): ContentTypeName | undefined {
  return BY_CODE.get(code);
}
