"use client";

import { useState, type ReactNode } from "react";
import { QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { SessionProvider } from "next-auth/react";
import { ApiError } from "@/lib/dashboard/api-client";
import type { Locale } from "@/lib/dashboard/i18n";
import { I18nProvider } from "@/components/i18n/i18n-provider";

function shouldRetry(failureCount: number, error: Error): boolean {
  // Client errors (bad filter, no access, signed out) will not fix themselves on retry.
  if (error instanceof ApiError && (error.signedOut || error.status < 500)) return false;
  return failureCount < 2;
}

function createQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({
      onError(error) {
        // The dashboard session ended (signed out elsewhere, expired): back to the login page.
        if (error instanceof ApiError && error.signedOut) window.location.assign("/login");
      },
    }),
    defaultOptions: { queries: { staleTime: 30_000, retry: shouldRetry } },
  });
}

export function Providers({ locale, children }: { locale: Locale; children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  return (
    <SessionProvider>
      <QueryClientProvider client={queryClient}>
        <I18nProvider initialLocale={locale}>{children}</I18nProvider>
      </QueryClientProvider>
    </SessionProvider>
  );
}
