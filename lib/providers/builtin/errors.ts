/**
 * A builtin tool could not produce a result for parameters that passed schema validation
 * (division by zero, an unknown time zone, malformed JSON text…). The executor reports the
 * message to the caller and never charges for it.
 */
export class BuiltinToolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BuiltinToolError";
  }
}
