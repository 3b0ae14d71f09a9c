// Unit and colour conversions. Linear units are defined by their factor to one base unit.
import { BuiltinToolError } from "./errors";
import { type BuiltinHandler, type Params, numbers, optArr, optNum, optStr, str, tidy } from "./params";

/** Metres per unit. Chinese market units (市制) are included because users ask for them. */
export const lengthUnits: Record<string, number> = {
  nm: 1e-9, um: 1e-6, mm: 1e-3, cm: 1e-2, dm: 0.1, m: 1, km: 1000,
  in: 0.0254, ft: 0.3048, yd: 0.9144, mi: 1609.344, nmi: 1852,
  cun: 1 / 30, chi: 1 / 3, zhang: 10 / 3, li: 500,
};

/** Kilograms per unit. */
export const massUnits: Record<string, number> = {
  mg: 1e-6, g: 1e-3, kg: 1, t: 1000,
  oz: 0.028349523125, lb: 0.45359237, st: 6.35029318,
  liang: 0.05, jin: 0.5, ct: 0.0002,
};

/** Litres per unit (US customary for cups, fluid ounces, pints, quarts and gallons). */
export const volumeUnits: Record<string, number> = {
  ml: 1e-3, cl: 1e-2, dl: 0.1, l: 1, m3: 1000, cm3: 1e-3,
  tsp: 0.00492892159375, tbsp: 0.01478676478125, fl_oz: 0.0295735295625, cup: 0.2365882365,
  pint: 0.473176473, quart: 0.946352946, gal: 3.785411784, imp_gal: 4.54609,
};

/** Bytes per unit: SI prefixes are powers of 1000, IEC (KiB…) powers of 1024. */
export const dataUnits: Record<string, number> = {
  bit: 1 / 8, B: 1,
  KB: 1e3, MB: 1e6, GB: 1e9, TB: 1e12, PB: 1e15,
  KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3, TiB: 1024 ** 4, PiB: 1024 ** 5,
  Kb: 1e3 / 8, Mb: 1e6 / 8, Gb: 1e9 / 8,
};

export const temperatureUnits = ["C", "F", "K", "R"] as const;

function unitOf(p: Params, name: string, table: Record<string, number>): number {
  const u = str(p, name);
  if (!Object.hasOwn(table, u)) throw new BuiltinToolError(`unknown unit "${u}" for ${name}; use one of ${Object.keys(table).join(", ")}`);
  return table[u];
}

/** Applies `convert` to `value` and/or each of `values` (the tools accept either). */
function convertEach(p: Params, convert: (x: number) => number) {
  const from = str(p, "from");
  const to = str(p, "to");
  const value = optNum(p, "value");
  const values = optArr(p, "values") === undefined ? undefined : numbers(p, "values");
  if (value === undefined && values === undefined) throw new BuiltinToolError("give value or values");
  return {
    from,
    to,
    ...(value !== undefined && { value, result: tidy(convert(value)) }),
    ...(values !== undefined && { values, results: values.map((v) => tidy(convert(v))) }),
  };
}

const linear = (table: Record<string, number>): BuiltinHandler => (p) => {
  const f = unitOf(p, "from", table);
  const t = unitOf(p, "to", table);
  return convertEach(p, (x) => (x * f) / t);
};

function toKelvin(x: number, unit: string): number {
  switch (unit) {
    case "C": return x + 273.15;
    case "F": return ((x - 32) * 5) / 9 + 273.15;
    case "R": return (x * 5) / 9;
    default: return x;
  }
}

function fromKelvin(k: number, unit: string): number {
  switch (unit) {
    case "C": return k - 273.15;
    case "F": return ((k - 273.15) * 9) / 5 + 32;
    case "R": return (k * 9) / 5;
    default: return k;
  }
}

const temperature: BuiltinHandler = (p) => {
  const from = str(p, "from");
  const to = str(p, "to");
  for (const u of [from, to]) {
    if (!(temperatureUnits as readonly string[]).includes(u)) throw new BuiltinToolError(`unknown temperature unit "${u}"`);
  }
  return convertEach(p, (x) => {
    const k = toKelvin(x, from);
    if (k < -1e-9) throw new BuiltinToolError(`${x} °${from} is below absolute zero`);
    return fromKelvin(k, to);
  });
};

type Rgb = { r: number; g: number; b: number };
type Hsl = { h: number; s: number; l: number };

function parseHex(hex: string): Rgb {
  const m = /^#?([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex.trim());
  if (!m) throw new BuiltinToolError(`"${hex}" is not a hex colour like #1e90ff or #fff`);
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join("") : m[1];
  return { r: Number.parseInt(h.slice(0, 2), 16), g: Number.parseInt(h.slice(2, 4), 16), b: Number.parseInt(h.slice(4, 6), 16) };
}

function rgbToHsl({ r, g, b }: Rgb): Hsl {
  const [rn, gn, bn] = [r / 255, g / 255, b / 255];
  const max = Math.max(rn, gn, bn);
  const min = Math.min(rn, gn, bn);
  const l = (max + min) / 2;
  const d = max - min;
  let h = 0;
  if (d !== 0) {
    if (max === rn) h = ((gn - bn) / d) % 6;
    else if (max === gn) h = (bn - rn) / d + 2;
    else h = (rn - gn) / d + 4;
  }
  const s = d === 0 ? 0 : d / (1 - Math.abs(2 * l - 1));
  return { h: Math.round(((h * 60) + 360) % 360), s: Math.round(s * 1000) / 10, l: Math.round(l * 1000) / 10 };
}

function hslToRgb({ h, s, l }: Hsl): Rgb {
  const sn = s / 100;
  const ln = l / 100;
  const c = (1 - Math.abs(2 * ln - 1)) * sn;
  const hp = (((h % 360) + 360) % 360) / 60;
  const x = c * (1 - Math.abs((hp % 2) - 1));
  const [r1, g1, b1] = hp < 1 ? [c, x, 0] : hp < 2 ? [x, c, 0] : hp < 3 ? [0, c, x] : hp < 4 ? [0, x, c] : hp < 5 ? [x, 0, c] : [c, 0, x];
  const m = ln - c / 2;
  return { r: Math.round((r1 + m) * 255), g: Math.round((g1 + m) * 255), b: Math.round((b1 + m) * 255) };
}

function triple(p: Params, name: string, max: [number, number, number]): [number, number, number] {
  const v = numbers(p, name);
  if (v.length !== 3) throw new BuiltinToolError(`${name} must hold exactly three numbers`);
  v.forEach((x, i) => {
    if (x < 0 || x > max[i]) throw new BuiltinToolError(`${name}[${i}] must be between 0 and ${max[i]}`);
  });
  return [v[0], v[1], v[2]];
}

/** WCAG relative luminance, used for the contrast ratios against black and white. */
function luminance({ r, g, b }: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

const color: BuiltinHandler = (p) => {
  let rgb: Rgb;
  const hex = optStr(p, "hex");
  if (hex !== undefined) rgb = parseHex(hex);
  else if (p.rgb !== undefined) {
    const [r, g, b] = triple(p, "rgb", [255, 255, 255]);
    rgb = { r: Math.round(r), g: Math.round(g), b: Math.round(b) };
  } else if (p.hsl !== undefined) {
    const [h, s, l] = triple(p, "hsl", [360, 100, 100]);
    rgb = hslToRgb({ h, s, l });
  } else throw new BuiltinToolError("give hex, rgb or hsl");
  const hsl = rgbToHsl(rgb);
  const hexOut = `#${[rgb.r, rgb.g, rgb.b].map((c) => c.toString(16).padStart(2, "0")).join("")}`;
  const lum = luminance(rgb);
  return {
    hex: hexOut,
    rgb,
    hsl,
    css_rgb: `rgb(${rgb.r}, ${rgb.g}, ${rgb.b})`,
    css_hsl: `hsl(${hsl.h}, ${hsl.s}%, ${hsl.l}%)`,
    luminance: Math.round(lum * 10000) / 10000,
    contrast_with_white: Math.round((1.05 / (lum + 0.05)) * 100) / 100,
    contrast_with_black: Math.round(((lum + 0.05) / 0.05) * 100) / 100,
  };
};

export const convertHandlers: Record<string, BuiltinHandler> = {
  "convert.length": linear(lengthUnits),
  "convert.mass": linear(massUnits),
  "convert.volume": linear(volumeUnits),
  "convert.data_size": linear(dataUnits),
  "convert.temperature": temperature,
  "color.convert": color,
};
