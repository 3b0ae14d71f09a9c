/** A tool as people name it, with its id beneath (the id alone when the catalog no longer has it). */
export function ToolLabel({ name, id, fallback, className = "" }: { name: string | null | undefined; id: string | null | undefined; fallback?: string; className?: string }) {
  if (!id) return <span className={`text-zinc-500 ${className}`}>{fallback ?? "—"}</span>;
  return (
    <span className={`flex min-w-0 flex-col ${className}`} title={id} data-testid="tool-label">
      <span className="truncate text-sm text-zinc-900">{name ?? id}</span>
      {name && <code className="truncate font-mono text-[11px] text-zinc-500">{id}</code>}
    </span>
  );
}
