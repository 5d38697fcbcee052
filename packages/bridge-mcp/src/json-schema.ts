/**
 * A tool's JSON Schemas as validators. @cfworker/json-schema interprets schemas without
 * generating code, so it runs on edge runtimes that forbid `eval` (the MCP SDK's servers use it
 * there for the same reason).
 */
import { Validator, type Schema } from '@cfworker/json-schema';
import { HandlerConfigError } from '@agdx/agents';
import { InvalidError, nestsDeeperThan } from '@agdx/wire';
import { MAX_NESTING_DEPTH, MAX_UNIQUE_ITEMS_PAIRS, schemaUses, uniqueItemsPairs } from './validation-cost.js';

/** The draft a schema without `$schema` is read as (MCP's default dialect). */
const DEFAULT_DRAFT = '2020-12';

/** Checks values against one schema. */
export interface SchemaCheck {
  /**
   * @param what the name the failure reports the value under (`arguments`, `structuredContent`)
   * @throws InvalidError naming the first failing location, with the validator's reason
   */
  check(value: unknown, what: string): void;
}

/** Refuses a whole value the validator is not given. @throws InvalidError naming `what` */
function refuse(what: string, reason: string): never {
  throw new InvalidError(`${what} do not match the tool's schema: ${reason}`, { context: { field: what, reason } });
}

/** `#/limit` → `limit`; `#` → `` (the value itself). */
function locationPath(location: string): string {
  return location.replace(/^#\/?/, '').split('/').filter((part) => part.length > 0).join('.');
}

/**
 * A validator for `schema`.
 * @throws InvalidError when the schema itself cannot be compiled.
 */
export function compileSchema(schema: Record<string, unknown>, field: string): SchemaCheck {
  let validator: Validator;
  try {
    validator = new Validator(schema as Schema, DEFAULT_DRAFT, true);
  } catch (cause) {
    throw new InvalidError(`the ${field} is not a usable JSON Schema`, { cause, context: { field } });
  }
  const checksUniqueItems = schemaUses(schema, 'uniqueItems');
  return {
    check(value, what) {
      // Refused before the validator runs: it recurses once per level, and its uniqueItems check is quadratic.
      if (nestsDeeperThan(value, MAX_NESTING_DEPTH)) refuse(what, `nested deeper than ${MAX_NESTING_DEPTH} levels`);
      if (checksUniqueItems && uniqueItemsPairs(value, MAX_UNIQUE_ITEMS_PAIRS) > MAX_UNIQUE_ITEMS_PAIRS) {
        refuse(what, `arrays too large to check for unique items (over ${MAX_UNIQUE_ITEMS_PAIRS} item pairs)`);
      }
      let result: ReturnType<Validator['validate']>;
      try {
        result = validator.validate(value);
      } catch (cause) {
        // A schema the validator cannot walk (a dangling $ref) is the server's fault, not the client's.
        throw new HandlerConfigError(`the ${field} could not be applied`, { cause, context: { field } });
      }
      if (result.valid) return;
      // Short-circuit mode: the deepest error is the last one, the one naming the member.
      const error = result.errors[result.errors.length - 1];
      let at = error === undefined ? '' : locationPath(error.instanceLocation);
      // A missing member is reported at its parent; name the member itself.
      const missing = error?.keyword === 'required' ? /required property "([^"]*)"/.exec(error.error)?.[1] : undefined;
      if (missing !== undefined) at = at.length > 0 ? `${at}.${missing}` : missing;
      const reason = error?.error ?? 'does not match the schema';
      throw new InvalidError(`${what} do not match the tool's schema: ${reason}`, {
        context: { field: at.length > 0 ? `${what}.${at}` : what, reason },
      });
    },
  };
}
