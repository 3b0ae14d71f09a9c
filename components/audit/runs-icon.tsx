import type { SVGProps } from "react";

/** Steps joined in order: an agent run (the navigation's Runs), drawn like the shell's other icons. */
export function RunsIcon(props: SVGProps<SVGSVGElement>) {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth={1.75} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true" width={20} height={20} {...props}>
      <circle cx="5" cy="6" r="2" />
      <circle cx="12" cy="18" r="2" />
      <circle cx="19" cy="6" r="2" />
      <path d="M6.2 7.7l4.6 8.6M13.2 16.3l4.6-8.6" />
    </svg>
  );
}
