"use client";

import { useActionState, useEffect, type ReactNode } from "react";

export interface ConsentDecision {
  redirectTo: string;
}

/**
 * The consent form. The decision's answer is where the browser goes next, followed as a full
 * navigation: a server action's redirect to this site's own origin would be followed by Next's
 * router inside the page (a client on Tollgate's own origin, such as a connection to Tollgate
 * itself, then never saw its callback in the browser).
 */
export function ConsentForm({ action, children }: { action: (previous: ConsentDecision | null, form: FormData) => Promise<ConsentDecision>; children: ReactNode }) {
  const [decision, formAction] = useActionState(action, null);
  useEffect(() => {
    if (decision) window.location.assign(decision.redirectTo);
  }, [decision]);
  return (
    <form action={formAction} className="space-y-6">
      {children}
    </form>
  );
}
