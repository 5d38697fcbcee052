import { expect, test } from 'vitest';
import * as wire from '@agdx/wire';

test('public entry loads', () => {
  expect(typeof wire).toBe('object');
});
