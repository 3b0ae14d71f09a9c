// Arithmetic, number theory, finance and health calculators.
import { BuiltinToolError } from "./errors";
import { evaluateExpression } from "./expression";
import { type BuiltinHandler, bool, int, num, numbers, oneOf, optNum, str, tidy } from "./params";

const evaluate: BuiltinHandler = (p) => {
  const expression = str(p, "expression");
  const angle = oneOf(p, "angle_unit", ["radians", "degrees"] as const, "radians");
  const precision = int(p, "precision", 12);
  const value = evaluateExpression(expression, angle);
  return { expression, result: tidy(value, precision), angle_unit: angle };
};

function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

const statistics: BuiltinHandler = (p) => {
  const values = numbers(p, "numbers");
  if (values.length === 0) throw new BuiltinToolError("numbers must hold at least one number");
  const n = values.length;
  const sorted = [...values].sort((a, b) => a - b);
  const sum = values.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  const squares = values.reduce((a, v) => a + (v - mean) ** 2, 0);
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  const top = Math.max(...counts.values());
  // Every value appearing once means there is no mode, not n modes.
  const mode = top > 1 ? [...counts].filter(([, c]) => c === top).map(([v]) => v).sort((a, b) => a - b) : [];
  return {
    count: n,
    sum: tidy(sum),
    mean: tidy(mean),
    median: tidy(quantile(sorted, 0.5)),
    mode,
    min: sorted[0],
    max: sorted[n - 1],
    range: tidy(sorted[n - 1] - sorted[0]),
    q1: tidy(quantile(sorted, 0.25)),
    q3: tidy(quantile(sorted, 0.75)),
    variance: tidy(squares / n),
    stddev: tidy(Math.sqrt(squares / n)),
    sample_variance: n > 1 ? tidy(squares / (n - 1)) : null,
    sample_stddev: n > 1 ? tidy(Math.sqrt(squares / (n - 1))) : null,
  };
};

const DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz";
const PREFIX_BASE: Record<string, number> = { "0x": 16, "0o": 8, "0b": 2 };

/** Parses an integer of any length in base 2-36 exactly (BigInt), accepting _ separators and 0x/0o/0b. */
export function parseBigInt(text: string, base: number): bigint {
  let s = text.trim().toLowerCase().replaceAll("_", "");
  let negative = false;
  if (s.startsWith("-") || s.startsWith("+")) {
    negative = s.startsWith("-");
    s = s.slice(1);
  }
  const prefix = s.slice(0, 2);
  if (PREFIX_BASE[prefix] === base) s = s.slice(2);
  if (s.length === 0) throw new BuiltinToolError("value has no digits");
  const b = BigInt(base);
  let n = 0n;
  for (const ch of s) {
    const d = DIGITS.indexOf(ch);
    if (d < 0 || d >= base) throw new BuiltinToolError(`"${ch}" is not a digit in base ${base}`);
    n = n * b + BigInt(d);
  }
  return negative ? -n : n;
}

const baseConvert: BuiltinHandler = (p) => {
  const value = str(p, "value");
  const from = int(p, "from_base", 10);
  const to = int(p, "to_base");
  for (const [name, b] of [["from_base", from], ["to_base", to]] as const) {
    if (b < 2 || b > 36) throw new BuiltinToolError(`${name} must be between 2 and 36`);
  }
  if (value.length > 4096) throw new BuiltinToolError("value is longer than 4096 characters");
  const n = parseBigInt(value, from);
  const uppercase = bool(p, "uppercase", false);
  const out = n.toString(to);
  return { value, from_base: from, to_base: to, result: uppercase ? out.toUpperCase() : out, decimal: n.toString(10) };
};

const ROMAN: [number, string][] = [
  [1000, "M"], [900, "CM"], [500, "D"], [400, "CD"], [100, "C"], [90, "XC"],
  [50, "L"], [40, "XL"], [10, "X"], [9, "IX"], [5, "V"], [4, "IV"], [1, "I"],
];

export function toRoman(n: number): string {
  if (!Number.isInteger(n) || n < 1 || n > 3999) throw new BuiltinToolError("roman numerals cover the integers 1 to 3999");
  let rest = n;
  let out = "";
  for (const [v, s] of ROMAN) {
    while (rest >= v) {
      out += s;
      rest -= v;
    }
  }
  return out;
}

export function fromRoman(text: string): number {
  const s = text.trim().toUpperCase();
  if (!/^[MDCLXVI]+$/.test(s)) throw new BuiltinToolError(`"${text}" is not a roman numeral`);
  let n = 0;
  let i = 0;
  for (const [v, sym] of ROMAN) {
    while (s.startsWith(sym, i)) {
      n += v;
      i += sym.length;
    }
  }
  // Re-encoding rejects non-canonical forms such as IIII or VX.
  if (i !== s.length || n < 1 || n > 3999 || toRoman(n) !== s) throw new BuiltinToolError(`"${text}" is not a canonical roman numeral`);
  return n;
}

const roman: BuiltinHandler = (p) => {
  const n = optNum(p, "number");
  if (n !== undefined) return { number: n, roman: toRoman(n) };
  const r = str(p, "roman");
  const value = fromRoman(r);
  return { number: value, roman: toRoman(value) };
};

const percentage: BuiltinHandler = (p) => {
  const mode = oneOf(p, "mode", ["percent_of", "what_percent", "change"] as const);
  const a = num(p, "a");
  const b = num(p, "b");
  if (mode === "percent_of") return { mode, a, b, result: tidy((a * b) / 100), explanation: `${a}% of ${b} is ${tidy((a * b) / 100)}` };
  if (mode === "what_percent") {
    if (b === 0) throw new BuiltinToolError("b must not be 0: a percentage of zero is undefined");
    const r = tidy((a / b) * 100);
    return { mode, a, b, result: r, explanation: `${a} is ${r}% of ${b}` };
  }
  if (a === 0) throw new BuiltinToolError("a must not be 0: a change from zero has no percentage");
  const r = tidy(((b - a) / Math.abs(a)) * 100);
  return { mode, a, b, result: r, explanation: `from ${a} to ${b} is a change of ${r}%` };
};

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y) [x, y] = [y, x % y];
  return x;
}

const gcdLcm: BuiltinHandler = (p) => {
  const values = numbers(p, "numbers");
  if (values.length < 2) throw new BuiltinToolError("numbers must hold at least two integers");
  if (!values.every(Number.isSafeInteger)) throw new BuiltinToolError("numbers must be integers");
  const big = values.map(BigInt);
  const g = big.reduce(gcd);
  // The LCM grows fast: BigInt keeps it exact and it is returned as a decimal string.
  const l = big.reduce((a, b) => (a === 0n || b === 0n ? 0n : ((a < 0n ? -a : a) / gcd(a, b)) * (b < 0n ? -b : b)));
  return { numbers: values, gcd: Number(g), lcm: l.toString() };
};

const primeCheck: BuiltinHandler = (p) => {
  const n = int(p, "n");
  if (n < 0 || n > 1e12) throw new BuiltinToolError("n must be between 0 and 10^12");
  const factors: { prime: number; exponent: number }[] = [];
  let rest = n;
  const take = (d: number) => {
    let e = 0;
    while (rest % d === 0) {
      rest /= d;
      e++;
    }
    if (e) factors.push({ prime: d, exponent: e });
  };
  if (n >= 2) {
    take(2);
    take(3);
    for (let d = 5; d * d <= rest; d += 6) {
      take(d);
      take(d + 2);
    }
    if (rest > 1) factors.push({ prime: rest, exponent: 1 });
  }
  const isPrime = n >= 2 && factors.length === 1 && factors[0].exponent === 1;
  return { n, is_prime: isPrime, factors };
};

const round2 = (x: number) => Math.round(x * 100) / 100;

const compoundInterest: BuiltinHandler = (p) => {
  const principal = num(p, "principal");
  const ratePercent = num(p, "annual_rate_percent");
  const years = num(p, "years");
  const n = int(p, "compounds_per_year", 12);
  const contribution = num(p, "contribution_per_period", 0);
  if (n < 1) throw new BuiltinToolError("compounds_per_year must be at least 1");
  const r = ratePercent / 100 / n;
  const valueAt = (y: number) => {
    const periods = Math.round(n * y);
    const growth = (1 + r) ** periods;
    return principal * growth + (r === 0 ? contribution * periods : contribution * ((growth - 1) / r));
  };
  const final = valueAt(years);
  const contributions = principal + contribution * Math.round(n * years);
  const schedule = [];
  for (let y = 1; y <= Math.min(Math.floor(years), 100); y++) schedule.push({ year: y, balance: round2(valueAt(y)) });
  return {
    final_amount: round2(final),
    total_contributions: round2(contributions),
    total_interest: round2(final - contributions),
    effective_annual_rate_percent: tidy(((1 + r) ** n - 1) * 100, 8),
    schedule,
  };
};

const loanPayment: BuiltinHandler = (p) => {
  const principal = num(p, "principal");
  const ratePercent = num(p, "annual_rate_percent");
  const months = int(p, "months");
  if (months < 1) throw new BuiltinToolError("months must be at least 1");
  const r = ratePercent / 100 / 12;
  const payment = r === 0 ? principal / months : (principal * r) / (1 - (1 + r) ** -months);
  const total = payment * months;
  return {
    monthly_payment: round2(payment),
    total_paid: round2(total),
    total_interest: round2(total - principal),
    first_month_interest: round2(principal * r),
  };
};

const RMB_DIGITS = "零壹贰叁肆伍陆柒捌玖";
const RMB_SMALL = ["", "拾", "佰", "仟"];
const RMB_LARGE = ["", "万", "亿", "万亿"];

/** Chinese financial capitals for an amount in yuan, e.g. 1234.5 → 壹仟贰佰叁拾肆元伍角整. */
export function rmbUppercase(amount: string): string {
  const m = /^(-)?(\d{1,16})(?:\.(\d{1,2}))?$/.exec(amount.trim().replaceAll(",", ""));
  if (!m) throw new BuiltinToolError("amount must be a decimal number with at most 16 integer digits and 2 decimals");
  const [, minus, intPart, fracPart = ""] = m;
  const yuan = intPart.replace(/^0+(?=\d)/, "");
  const jiao = Number(fracPart[0] ?? "0");
  const fen = Number(fracPart[1] ?? "0");
  let out = "";
  if (yuan !== "0") {
    // Groups of four digits from the right; zeros collapse to a single 零 between non-zero digits.
    const groups: string[] = [];
    for (let end = yuan.length; end > 0; end -= 4) groups.unshift(yuan.slice(Math.max(0, end - 4), end));
    let pendingZero = false;
    groups.forEach((g, gi) => {
      const large = RMB_LARGE[groups.length - 1 - gi];
      const digits = g.padStart(4, "0");
      let groupText = "";
      for (let k = 0; k < 4; k++) {
        const d = Number(digits[k]);
        if (d === 0) {
          if (groupText || out) pendingZero = true;
          continue;
        }
        if (pendingZero) groupText += "零";
        pendingZero = false;
        groupText += RMB_DIGITS[d] + RMB_SMALL[3 - k];
      }
      if (groupText) out += groupText + large;
    });
    out += "元";
  }
  if (jiao === 0 && fen === 0) return `${minus ? "负" : ""}${out || "零元"}整`;
  if (jiao) out += RMB_DIGITS[jiao] + "角";
  else if (out) out += "零";
  if (fen) out += RMB_DIGITS[fen] + "分";
  else out += "整";
  return (minus ? "负" : "") + out;
}

const rmb: BuiltinHandler = (p) => {
  const amount = str(p, "amount");
  return { amount, uppercase: rmbUppercase(amount) };
};

const bmi: BuiltinHandler = (p) => {
  const weightKg = optNum(p, "weight_kg") ?? (optNum(p, "weight_lb") ?? NaN) * 0.45359237;
  const heightCm = optNum(p, "height_cm") ?? (optNum(p, "height_in") ?? NaN) * 2.54;
  if (!(weightKg > 0)) throw new BuiltinToolError("give a positive weight_kg or weight_lb");
  if (!(heightCm > 0)) throw new BuiltinToolError("give a positive height_cm or height_in");
  const standard = oneOf(p, "standard", ["who", "china"] as const, "who");
  const m = heightCm / 100;
  const value = weightKg / (m * m);
  // China's adult cut-offs (WS/T 428) are lower than WHO's: 24 overweight, 28 obese.
  const [over, obese] = standard === "china" ? [24, 28] : [25, 30];
  const category = value < 18.5 ? "underweight" : value < over ? "normal" : value < obese ? "overweight" : "obese";
  const zh = { underweight: "偏瘦", normal: "正常", overweight: "超重", obese: "肥胖" }[category];
  return {
    bmi: Math.round(value * 10) / 10,
    category,
    category_zh: zh,
    standard,
    healthy_weight_range_kg: [Math.round(18.5 * m * m * 10) / 10, Math.round((over - 0.1) * m * m * 10) / 10],
  };
};

export const mathHandlers: Record<string, BuiltinHandler> = {
  "math.evaluate": evaluate,
  "math.statistics": statistics,
  "math.base_convert": baseConvert,
  "math.roman": roman,
  "math.percentage": percentage,
  "math.gcd_lcm": gcdLcm,
  "math.prime": primeCheck,
  "finance.compound_interest": compoundInterest,
  "finance.loan_payment": loanPayment,
  "finance.rmb_uppercase": rmb,
  "health.bmi": bmi,
};
