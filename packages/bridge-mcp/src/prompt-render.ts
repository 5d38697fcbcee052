import { InvalidError } from '@agdx/wire';
import type { McpPrompt } from './catalog.js';

/** `{name}` placeholders; names as MCP prompt arguments are usually spelled. */
const PLACEHOLDER = /\{([A-Za-z0-9_.-]{1,128})\}/g;

/**
 * A renderer of `prompt`'s messages with `args` substituted.
 *
 * Only declared arguments are placeholders: other braces (JSON examples in a prompt) stay as
 * written. The replacement is one pass over the configured text, so a value containing `{x}`
 * is never expanded again.
 * @throws InvalidError (field `arguments.<name>`) when a required argument is missing or a value is not a string.
 */
export function renderPrompt(prompt: McpPrompt, args: Readonly<Record<string, string>>): (text: string) => string {
  const declared = new Map((prompt.arguments ?? []).map((argument) => [argument.name, argument]));
  for (const argument of declared.values()) {
    const value = Object.hasOwn(args, argument.name) ? args[argument.name] : undefined;
    if (value === undefined && argument.required === true) {
      throw new InvalidError(`prompt argument ${argument.name} is required`, { context: { field: `arguments.${argument.name}`, reason: 'required' } });
    }
    if (value !== undefined && typeof value !== 'string') {
      throw new InvalidError(`prompt argument ${argument.name} must be a string`, { context: { field: `arguments.${argument.name}`, reason: 'expected string' } });
    }
  }
  return (text) =>
    text.replace(PLACEHOLDER, (whole, name: string) => {
      if (!declared.has(name)) return whole;
      return Object.hasOwn(args, name) ? (args[name] ?? '') : '';
    });
}
