import { Card } from "./card";
import { InfoIcon } from "./icons";

/** A page whose API has not landed yet: says what it will show, and shows no made-up data. */
export function ComingSoon({ heading, description, note }: { heading: string; description: string; note: string }) {
  return (
    <Card className="p-6 sm:p-8">
      <div className="flex items-start gap-4">
        <span className="flex size-10 shrink-0 items-center justify-center rounded-lg bg-indigo-50 text-indigo-600">
          <InfoIcon />
        </span>
        <div className="min-w-0">
          <h2 className="text-base font-semibold text-zinc-900">{heading}</h2>
          <p className="mt-2 max-w-2xl text-sm leading-6 text-zinc-600">{description}</p>
          <p className="mt-4 text-xs text-zinc-400">{note}</p>
        </div>
      </div>
    </Card>
  );
}
