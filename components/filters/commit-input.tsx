"use client";

import { useEffect, useState, type InputHTMLAttributes } from "react";
import { TextInput } from "@/components/ui/form-controls";

/**
 * A text filter that applies on Enter or when it loses focus, not on every keystroke: typing an
 * id does not fire a request per character, and the URL changes once.
 */
export function CommitInput({ value, onCommit, ...props }: Omit<InputHTMLAttributes<HTMLInputElement>, "value" | "onChange"> & { value: string; onCommit: (value: string) => void }) {
  const [draft, setDraft] = useState(value);
  useEffect(() => setDraft(value), [value]);
  const commit = () => {
    if (draft.trim() !== value) onCommit(draft.trim());
  };
  return (
    <TextInput
      {...props}
      value={draft}
      onChange={(e) => setDraft(e.target.value)}
      onBlur={commit}
      onKeyDown={(e) => {
        if (e.key === "Enter") {
          e.preventDefault();
          commit();
        }
      }}
    />
  );
}
