import { describe, expect, it } from 'vitest';
import { jsonBody, readJsonBody } from '@agdx/bridge-kit';
import { InvalidError } from '@agdx/wire';

// JSON lets a parser ignore one leading byte order mark (U+FEFF, bytes EF BB BF); JSON.parse refuses
// it. Bytes are checked as JSON without changing them; request bodies are parsed with or without it.
const utf8 = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf] as const;

describe('JSON with and without a leading byte order mark', () => {
  it('jsonBody accepts bytes either way and returns them as given', () => {
    for (const bytes of [utf8.encode('{"q":"\ufeffx"}'), Uint8Array.of(...BOM, ...utf8.encode('{"q":1}'))]) {
      expect(jsonBody(bytes, 'args')).toBe(bytes);
    }
    // a mark that is not the first character is not JSON whitespace
    expect(() => jsonBody(Uint8Array.of(0x20, ...BOM, 0x7b, 0x7d), 'args')).toThrow(InvalidError);
  });

  it('readJsonBody parses a request body either way; strings keep their marks', async () => {
    const request = (body: Uint8Array<ArrayBuffer>): Request => new Request('http://h/', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    for (const body of [utf8.encode('{"q":"\ufeffx"}'), Uint8Array.of(...BOM, ...utf8.encode('{"q":"\ufeffx"}'))]) {
      expect(await readJsonBody(request(body), 1024)).toEqual({ ok: true, value: { q: '\ufeffx' } });
    }
    const midway = await readJsonBody(request(Uint8Array.of(0x20, ...BOM, 0x7b, 0x7d)), 1024);
    expect(midway.ok).toBe(false);
  });
});
