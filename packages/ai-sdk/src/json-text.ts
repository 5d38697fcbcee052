/**
 * JSON text for a value from a model or a tool, which may hold what JSON cannot: bytes become
 * base64 (the AI SDK accepts base64 text wherever it takes file data), URLs their text, bigints
 * their decimal text, and a value that still cannot be written (a cycle) its `String` form. Never
 * throws, so a strange tool output cannot lose the records around it.
 */
export function jsonText(value: unknown): string {
  try {
    return JSON.stringify(value === undefined ? null : value, replacer) ?? 'null';
  } catch {
    try {
      return JSON.stringify(String(value));
    } catch {
      return 'null';
    }
  }
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Uint8Array) return base64(value);
  if (value instanceof ArrayBuffer) return base64(new Uint8Array(value));
  if (value instanceof URL) return value.href;
  return value;
}

const SLICE = 0x8000;

/** Base64 with web-standard APIs only (no `Buffer`), in slices so large files do not overflow the call stack. */
export function base64(bytes: Uint8Array): string {
  let binary = '';
  for (let at = 0; at < bytes.length; at += SLICE) binary += String.fromCharCode(...bytes.subarray(at, at + SLICE));
  return btoa(binary);
}

/** The message of an error of any shape, for an AgentErrorBody. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message.length > 0 ? error.message : error.name;
  if (typeof error === 'string') return error;
  return jsonText(error);
}
