import { forwardRef, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";

/** One look for every text field, select and textarea; `invalid` marks a field with an error. */
export function controlClass(invalid = false, className = ""): string {
  return `block w-full rounded-lg border bg-white px-3 py-2 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-500 focus:outline-2 focus:outline-offset-0 focus:outline-indigo-500 disabled:bg-zinc-50 disabled:text-zinc-500 ${
    invalid ? "border-red-400" : "border-zinc-300"
  } ${className}`;
}

export const TextInput = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement> & { invalid?: boolean }>(function TextInput({ invalid, className, ...props }, ref) {
  return <input ref={ref} aria-invalid={invalid || undefined} className={controlClass(invalid, className)} {...props} />;
});

export function Select({ invalid, className, ...props }: SelectHTMLAttributes<HTMLSelectElement> & { invalid?: boolean }) {
  return <select aria-invalid={invalid || undefined} className={controlClass(invalid, `pr-8 ${className ?? ""}`)} {...props} />;
}

export function TextArea({ invalid, className, ...props }: TextareaHTMLAttributes<HTMLTextAreaElement> & { invalid?: boolean }) {
  return <textarea aria-invalid={invalid || undefined} className={controlClass(invalid, `font-mono text-xs leading-5 ${className ?? ""}`)} {...props} />;
}

export function FieldLabel({ htmlFor, children, hint }: { htmlFor: string; children: ReactNode; hint?: ReactNode }) {
  return (
    // A long hint (a JSON path, say) is cut short rather than spilling into the next field; it
    // never squeezes the label itself onto two lines, nor (zero width before it grows) widens a
    // grid column past the screen.
    <label htmlFor={htmlFor} className="mb-1 flex min-w-0 items-baseline text-xs font-medium text-zinc-600">
      <span className="max-w-full shrink-0">{children}</span>
      {hint && (
        <span className="ml-1 w-0 min-w-0 flex-1 truncate font-normal text-zinc-500" title={typeof hint === "string" ? hint : undefined}>
          {hint}
        </span>
      )}
    </label>
  );
}

/** The larger text field of the standalone sign-in pages (login, invitation), under a full-size label. */
export const authInputClass =
  "mt-1.5 block w-full rounded-lg border border-zinc-300 bg-white px-3 py-2 text-sm text-zinc-900 shadow-xs placeholder:text-zinc-500 focus:border-indigo-500 focus:outline-2 focus:outline-offset-0 focus:outline-indigo-500/30";
