"use client";

/** Single-choice chips (with an "all" chip), each a real toggle button: usable from the keyboard. */
export function ChipGroup<T extends string>({
  label,
  options,
  value,
  onChange,
  allLabel,
  testId,
}: {
  label: string;
  options: { value: T; label: string; swatch?: string }[];
  value: T | undefined;
  onChange: (value: T | undefined) => void;
  allLabel: string;
  testId?: string;
}) {
  const chip = (active: boolean) =>
    `inline-flex items-center gap-1.5 rounded-full border px-3 py-1 text-xs font-medium transition-colors ${
      active ? "border-indigo-600 bg-indigo-600 text-white" : "border-zinc-300 bg-white text-zinc-700 hover:border-zinc-400 hover:bg-zinc-50"
    }`;
  return (
    <div role="group" aria-label={label} className="flex flex-wrap gap-1.5" data-testid={testId}>
      <button type="button" aria-pressed={value === undefined} onClick={() => onChange(undefined)} className={chip(value === undefined)}>
        {allLabel}
      </button>
      {options.map((option) => (
        <button key={option.value} type="button" aria-pressed={value === option.value} onClick={() => onChange(value === option.value ? undefined : option.value)} className={chip(value === option.value)}>
          {option.swatch && <span className="size-2 rounded-full ring-1 ring-white/60" style={{ backgroundColor: option.swatch }} aria-hidden="true" />}
          {option.label}
        </button>
      ))}
    </div>
  );
}
