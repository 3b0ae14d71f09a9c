import { describe, expect, it } from "vitest";
import type { CapabilityParam } from "./discover";
import { describeFileValue, extraParameters, fieldsOf, oneOfStatus, parameterOfError, parametersFromValues, parseParametersJson, textOf, valuesFromParameters } from "./param-form";

const params: CapabilityParam[] = [
  { name: "value", type: "number", required: false },
  { name: "values", type: "array", required: false, items: { type: "number" } },
  { name: "from", type: "string", required: true, enum: ["m", "cm"] },
  { name: "precision", type: "integer", required: false, enum: [2, 4] },
  { name: "strict", type: "boolean", required: false },
  { name: "options", type: "object", required: false },
  { name: "note", type: "string", required: false },
];
const fields = fieldsOf(params);

describe("the Console's parameter form", () => {
  it("chooses a control per declared type: enums as selects, typed lists, JSON for objects", () => {
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ["value", "number"],
      ["values", "list"],
      ["from", "enum"],
      ["precision", "enum"],
      ["strict", "boolean"],
      ["options", "json"],
      ["note", "text"],
    ]);
  });

  it("round-trips sample parameters through the form without changing their types", () => {
    const sample = { value: 1.5, values: [1, 2], from: "m", precision: 4, strict: true, options: { a: [1] }, note: "hi, there" };
    const values = valuesFromParameters(fields, sample);
    expect(values.values).toBe("1, 2");
    expect(values.precision).toBe("4");
    expect(parametersFromValues(fields, values)).toEqual({ parameters: sample, errors: {} });
  });

  it("leaves empty fields out, so the API reports a missing required parameter by name", () => {
    const { parameters } = parametersFromValues(fields, { value: "", from: "", note: "  " });
    expect(parameters).toEqual({});
  });

  it("sends text that is not a number as typed, for the API to reject by name", () => {
    expect(parametersFromValues(fields, { value: "ten" }).parameters).toEqual({ value: "ten" });
  });

  it("reports JSON that does not parse instead of sending it", () => {
    expect(parametersFromValues(fields, { options: "{nope" })).toEqual({ parameters: {}, errors: { options: "json" } });
    expect(parametersFromValues(fields, { values: "[1, 2" }).errors).toEqual({ values: "json" });
  });

  it("keeps parameters the form has no field for", () => {
    expect(extraParameters(fields, { value: 1, unknown: true })).toEqual({ unknown: true });
    expect(parametersFromValues(fields, { value: "2" }, { unknown: true }).parameters).toEqual({ unknown: true, value: 2 });
  });

  it("explains one_of_required groups by whether any member is given", () => {
    expect(oneOfStatus([["value", "values"]], { values: [1] })).toEqual([{ group: ["value", "values"], satisfied: true }]);
    expect(oneOfStatus([["value", "values"]], {})).toEqual([{ group: ["value", "values"], satisfied: false }]);
  });

  it("finds the parameter a Probe or Call error belongs to", () => {
    expect(parameterOfError(["body", "parameters", "from"])).toBe("from");
    expect(parameterOfError(["body", "parameters"])).toBeNull();
  });

  it("accepts only a JSON object in the raw editor", () => {
    expect(parseParametersJson('{"a": 1}')).toEqual({ ok: true, parameters: { a: 1 } });
    expect(parseParametersJson("[1]")).toEqual({ ok: false, error: "not_object" });
    expect(parseParametersJson("{").ok).toBe(false);
  });
});

describe("file parameters", () => {
  const fileParam = { name: "file", type: "string", required: true, description: "The file.", json_schema: { type: "string", format: "binary" } } as CapabilityParam;

  it("a string whose schema says format binary is a file field, sent as its text (a data: URI)", () => {
    const [field] = fieldsOf([fileParam, { name: "note", type: "string", required: false, description: "" } as CapabilityParam]);
    expect(field.kind).toBe("file");
    expect(fieldsOf([{ ...fileParam, json_schema: undefined }])[0].kind).toBe("text");
    const uri = "data:text/plain;name=notes.txt;base64,aGVsbG8=";
    expect(parametersFromValues([field], { file: uri }).parameters).toEqual({ file: uri });
    expect(textOf(field, uri)).toBe(uri);
  });

  it("describes a data: URI by its name, type and decoded size, and other text by its length", () => {
    expect(describeFileValue("data:text/plain;name=notes.txt;base64,aGVsbG8=")).toEqual({ name: "notes.txt", type: "text/plain", bytes: 5, dataUri: true });
    expect(describeFileValue("data:;base64,aGk=")).toEqual({ name: undefined, type: undefined, bytes: 2, dataUri: true });
    expect(describeFileValue("aGVsbG8=")).toEqual({ bytes: 8, dataUri: false });
  });
});
