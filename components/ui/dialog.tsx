"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { CloseIcon } from "./icons";

/**
 * A modal on the native <dialog>: the browser traps focus, closes it on Escape and restores focus
 * afterwards. `variant="panel"` slides it in from the right as a side panel (full width on phones).
 */
export function Dialog({
  open,
  onClose,
  title,
  description,
  children,
  footer,
  variant = "modal",
  closeLabel,
  testId,
}: {
  open: boolean;
  onClose: () => void;
  title: ReactNode;
  description?: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
  variant?: "modal" | "panel";
  closeLabel: string;
  testId?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);

  const frame =
    variant === "panel"
      ? "m-0 ml-auto h-dvh max-h-dvh w-full max-w-xl rounded-none sm:rounded-l-xl"
      : "m-auto w-[calc(100%-2rem)] max-w-lg rounded-xl";

  return (
    <dialog
      ref={ref}
      aria-labelledby={titleId}
      data-testid={testId}
      onClose={onClose}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its content) closes it.
        if (event.target === ref.current) onClose();
      }}
      className={`${frame} bg-white p-0 text-zinc-900 shadow-xl backdrop:bg-zinc-900/40`}
    >
      {open && (
        <div className={`flex flex-col ${variant === "panel" ? "h-full" : "max-h-[85dvh]"}`}>
          <div className="flex items-start justify-between gap-4 border-b border-zinc-200 px-5 py-4">
            <div className="min-w-0">
              <h2 id={titleId} className="text-base font-semibold text-zinc-900">
                {title}
              </h2>
              {description && <div className="mt-1 text-sm text-zinc-500">{description}</div>}
            </div>
            <button type="button" onClick={onClose} aria-label={closeLabel} className="-mr-2 rounded-lg p-1.5 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-900">
              <CloseIcon />
            </button>
          </div>
          <div className="min-h-0 flex-1 overflow-y-auto px-5 py-4">{children}</div>
          {footer && <div className="flex flex-wrap justify-end gap-2 border-t border-zinc-200 px-5 py-3">{footer}</div>}
        </div>
      )}
    </dialog>
  );
}
