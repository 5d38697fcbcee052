/**
 * A card signature's protected header is base64url of JSON. JSON lets a parser ignore one leading
 * byte order mark, and this reader does: a header written with one is read, so its `alg` and `kid`
 * are checked like any other header's (reading it as no JSON at all would skip the kid check).
 */
import { describe, expect, it } from 'vitest';
import { registryKeyOf, SignatureError, signCardSync, SigningKey, verifyCardSync } from '@agdx/sign';

const b64url = (text: string): string => Buffer.from(new TextEncoder().encode(text)).toString('base64url');
const card = { name: 'planner', url: 'https://example.invalid/a2a' };

describe('card protected headers with and without a byte order mark', () => {
  const key = SigningKey.fromBytes(new Uint8Array(32).fill(9));
  const other = SigningKey.fromBytes(new Uint8Array(32).fill(10));

  it('a header naming the signing key signs and verifies either way', () => {
    for (const prefix of ['', '\ufeff']) {
      const header = b64url(`${prefix}{"alg":"EdDSA","kid":"${registryKeyOf(key.verifyingKey)}","typ":"JOSE"}`);
      const signature = signCardSync(card, key, header);
      expect(signature.protected).toBe(header);
      expect(() => verifyCardSync(card, signature, key.verifyingKey)).not.toThrow();
    }
  });

  it('a header with a leading byte order mark that names another key is refused, not read as naming none', () => {
    const header = b64url(`\ufeff{"alg":"EdDSA","kid":"${registryKeyOf(other.verifyingKey)}"}`);
    const signature = signCardSync(card, key, header);
    expect(() => verifyCardSync(card, signature, key.verifyingKey)).toThrow(new SignatureError('card signature names another key'));
  });

  it('a header whose first character is not the mark or JSON is refused for signing', () => {
    expect(() => signCardSync(card, key, b64url(' \ufeff{"alg":"EdDSA"}'))).toThrow(SignatureError);
  });
});
