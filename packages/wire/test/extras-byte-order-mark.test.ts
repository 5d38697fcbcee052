import { describe, expect, test } from 'vitest';
import { AgentId, CodecError, decodeSessionPauseRequest, encodeSessionPauseRequest, readStringHeader, stringHeader } from '@agdx/wire';

// A TextDecoder drops a leading U+FEFF unless told not to; text and ids must come back as sent.
const BOM = '\ufeff';
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

describe('string headers keep a leading U+FEFF', () => {
  test.each([`${BOM}x`, BOM, `${BOM}${BOM}x`, `a${BOM}b`, 'plain'])('%j round-trips', (text) => {
    expect(readStringHeader(stringHeader(text), 'h')).toBe(text);
  });
});

describe('session pause request bodies (JSON) with and without a byte order mark', () => {
  const alice = AgentId.parse('alice');
  const marked = AgentId.parse(`${BOM}bob`);

  test('an encoded request round-trips, an id that starts with U+FEFF included', () => {
    const decoded = decodeSessionPauseRequest(encodeSessionPauseRequest({ participants: [alice, marked] }));
    expect(decoded.participants.map((a) => a.value)).toEqual(['alice', `${BOM}bob`]);
  });

  test('a body written with a leading byte order mark is still read, and the ids inside are unchanged', () => {
    const body = utf8(`${BOM}{"participants":["alice","${BOM}bob"]}`);
    expect(decodeSessionPauseRequest(body).participants.map((a) => a.value)).toEqual(['alice', `${BOM}bob`]);
  });

  test('a U+FEFF that is not the first character of the body is refused like any other non-JSON text', () => {
    expect(() => decodeSessionPauseRequest(utf8(` ${BOM}{}`))).toThrow(CodecError);
  });
});
