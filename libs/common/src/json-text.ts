/**
 * A value read from JSON (tool args, workflow inputs, rows) as text for a URL, a template or a CSV cell: a string as
 * it is, an object, array or null as JSON, any other value as `String()` gives it.
 */
export function jsonText(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'object':
      return JSON.stringify(value);
    case 'number':
    case 'boolean':
    case 'bigint':
    case 'symbol':
    case 'undefined':
    case 'function':
      return String(value);
  }
}
