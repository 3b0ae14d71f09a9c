/** The Tollgate mark (a gate's crossbar and post, which is also a T) and word. */
export function Logo({ withWord = true }: { withWord?: boolean }) {
  return (
    <span className="inline-flex items-center gap-2.5">
      <svg viewBox="0 0 32 32" width={28} height={28} aria-hidden="true" className="shrink-0">
        <rect width="32" height="32" rx="8" className="fill-indigo-600" />
        <path d="M9 10.5h14M16 10.5V23" stroke="white" strokeWidth="3" strokeLinecap="round" fill="none" />
        <path d="M11 23h10" stroke="white" strokeOpacity="0.5" strokeWidth="2" strokeLinecap="round" />
      </svg>
      {withWord && <span className="text-[15px] font-semibold tracking-tight text-zinc-900">Tollgate</span>}
    </span>
  );
}
