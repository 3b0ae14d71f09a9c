import type { CapabilityParam } from "./discover";

/**
 * The Console's parameter form, generated from a tool's `params`: one field per parameter, its
 * text as typed, and the conversion between that text and the `parameters` object sent to Probe
 * and Call. Type checking is left to Probe (the API's validator is the single judge); the form
 * converts what it can and sends the rest as typed, so the API names the problem.
 */
export type FieldKind = "text" | "number" | "boolean" | "enum" | "list" | "json" | "file";

export interface FormField {
  name: string;
  kind: FieldKind;
  /** The declared JSON type (`string`, `integer`, `array`…). */
  type: string;
  required: boolean;
  description?: string;
  options?: (string | number | boolean)[];
  /** For arrays: the items' declared type. */
  itemsType?: string;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

export type FormValues = Record<string, string>;

export function fieldsOf(params: CapabilityParam[]): FormField[] {
  return params.map((p) => {
    const base = {
      name: p.name,
      type: p.type,
      required: p.required,
      description: p.description,
      minimum: p.minimum,
      maximum: p.maximum,
      default: p.default,
    };
    if (p.enum && p.enum.length > 0) return { ...base, kind: "enum" as const, options: p.enum };
    // A file's content (`format: binary`): the Console reads a chosen file into a data: URI.
    if (p.type === "string" && (p.json_schema as { format?: unknown } | undefined)?.format === "binary") return { ...base, kind: "file" as const };
    switch (p.type) {
      case "number":
      case "integer":
        return { ...base, kind: "number" as const };
      case "boolean":
        return { ...base, kind: "boolean" as const };
      case "array":
        return p.items && p.items.type !== "object" && p.items.type !== "array"
          ? { ...base, kind: "list" as const, itemsType: p.items.type, options: p.items.enum }
          : { ...base, kind: "json" as const };
      case "object":
        return { ...base, kind: "json" as const };
      default:
        return { ...base, kind: "text" as const };
    }
  });
}

/** The text a field shows for a value (from sample_parameters or the JSON editor). */
export function textOf(field: FormField, value: unknown): string {
  if (value === undefined || value === null) return "";
  switch (field.kind) {
    case "text":
    case "file":
      return typeof value === "string" ? value : JSON.stringify(value);
    case "number":
    case "boolean":
    case "enum":
      return typeof value === "string" ? value : JSON.stringify(value);
    case "list":
      return Array.isArray(value) && value.every((v) => typeof v !== "string" || !/[,\n]/.test(v))
        ? value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")
        : JSON.stringify(value);
    case "json":
      return JSON.stringify(value, null, 2);
  }
}

export function valuesFromParameters(fields: FormField[], parameters: Record<string, unknown>): FormValues {
  return Object.fromEntries(fields.map((f) => [f.name, textOf(f, parameters[f.name])]));
}

function scalar(text: string, type: string | undefined): unknown {
  const trimmed = text.trim();
  if (type === "number" || type === "integer") {
    const n = Number(trimmed);
    return trimmed !== "" && Number.isFinite(n) ? n : trimmed;
  }
  if (type === "boolean") {
    if (trimmed === "true") return true;
    if (trimmed === "false") return false;
    return trimmed;
  }
  return text;
}

export interface Conversion {
  parameters: Record<string, unknown>;
  /** Fields whose text could not be read at all (JSON that does not parse). */
  errors: Record<string, string>;
}

/**
 * The `parameters` object for the form's values: empty fields are left out (so a required one is
 * reported missing by the API), enum choices keep their declared type, numbers that do not parse
 * are sent as text for the API to reject by name.
 */
export function parametersFromValues(fields: FormField[], values: FormValues, extra: Record<string, unknown> = {}): Conversion {
  const parameters: Record<string, unknown> = { ...extra };
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const text = values[field.name] ?? "";
    if (text.trim() === "") continue;
    switch (field.kind) {
      case "text":
      case "file":
        parameters[field.name] = text;
        break;
      case "number":
      case "boolean":
        parameters[field.name] = scalar(text, field.type);
        break;
      case "enum": {
        const option = field.options?.find((o) => String(o) === text);
        parameters[field.name] = option ?? text;
        break;
      }
      case "list": {
        if (text.trim().startsWith("[")) {
          try {
            parameters[field.name] = JSON.parse(text);
          } catch {
            errors[field.name] = "json";
          }
        } else {
          parameters[field.name] = text
            .split(/[,\n]/)
            .map((item) => item.trim())
            .filter((item) => item !== "")
            .map((item) => scalar(item, field.itemsType));
        }
        break;
      }
      case "json":
        try {
          parameters[field.name] = JSON.parse(text);
        } catch {
          errors[field.name] = "json";
        }
        break;
    }
  }
  return { parameters, errors };
}

/** Parameters the form has no field for (kept from the JSON editor so nothing is lost silently). */
export function extraParameters(fields: FormField[], parameters: Record<string, unknown>): Record<string, unknown> {
  const known = new Set(fields.map((f) => f.name));
  return Object.fromEntries(Object.entries(parameters).filter(([name]) => !known.has(name)));
}

/** Each `one_of_required` group and whether the parameters satisfy it. */
export function oneOfStatus(groups: string[][] | undefined, parameters: Record<string, unknown>): { group: string[]; satisfied: boolean }[] {
  return (groups ?? []).map((group) => ({ group, satisfied: group.some((name) => parameters[name] !== undefined) }));
}

/**
 * Probe and Call report field errors at `["body", "parameters", <name>, ...]`: the parameter each
 * error belongs to, or null for errors about the whole object (a `one_of_required` group).
 */
export function parameterOfError(loc: readonly (string | number)[]): string | null {
  const at = loc.indexOf("parameters");
  const name = at >= 0 ? loc[at + 1] : undefined;
  return typeof name === "string" ? name : null;
}

/** Parses the raw JSON editor's text into a parameters object, or says why it cannot. */
export function parseParametersJson(text: string): { ok: true; parameters: Record<string, unknown> } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, parameters: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) return { ok: false, error: "not_object" };
  return { ok: true, parameters: value as Record<string, unknown> };
}

/** A chosen file as a `data:` URI naming it (`data:<type>;name=<file>;base64,...`), as Call takes file parameters. */
export function fileAsDataUri(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => {
      const uri = String(reader.result);
      const name = file.name.replace(/[;,\s]/g, "_");
      resolve(name ? uri.replace(/^data:([^;,]*)/, (_, type: string) => `data:${type || "application/octet-stream"};name=${name}`) : uri);
    };
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** What a file field's value holds: a data: URI's name, type and decoded size, or the length of other text. */
export function describeFileValue(value: string): { name?: string; type?: string; bytes: number; dataUri: boolean } {
  const match = /^data:([^,]*),(.*)$/s.exec(value);
  if (!match) return { bytes: value.length, dataUri: false };
  const [type, ...params] = match[1].split(";");
  const base64 = params.includes("base64");
  const payload = match[2];
  const bytes = base64 ? Math.floor((payload.length * 3) / 4) - (payload.endsWith("==") ? 2 : payload.endsWith("=") ? 1 : 0) : payload.length;
  return { name: params.find((p) => p.startsWith("name="))?.slice(5), type: type || undefined, bytes, dataUri: true };
}
