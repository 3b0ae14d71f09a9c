"use client";

import { locales, localeNames, localeShortNames } from "@/lib/dashboard/i18n";
import { useI18n } from "./i18n-provider";

/** A two-way EN / 中文 toggle; each button is a real button, so it works from the keyboard. */
export function LanguageSwitcher({ className = "" }: { className?: string }) {
  const { locale, setLocale, t } = useI18n();
  return (
    <div role="group" aria-label={t("shell.language")} className={`inline-flex rounded-lg border border-zinc-200 bg-white p-0.5 text-xs ${className}`}>
      {locales.map((option) => {
        const active = option === locale;
        return (
          <button
            key={option}
            type="button"
            lang={option === "zh" ? "zh-CN" : "en"}
            aria-pressed={active}
            title={localeNames[option]}
            onClick={() => !active && setLocale(option)}
            className={`rounded-md px-2.5 py-1 font-medium transition-colors ${
              active ? "bg-zinc-900 text-white" : "text-zinc-600 hover:bg-zinc-100 hover:text-zinc-900"
            }`}
          >
            {localeShortNames[option]}
          </button>
        );
      })}
    </div>
  );
}
