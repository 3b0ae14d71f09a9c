import { Card } from "./card";
import { AlertIcon } from "./icons";

export function ErrorState({ title, message, retryLabel, onRetry }: { title: string; message: string; retryLabel?: string; onRetry?: () => void }) {
  return (
    <Card className="border-red-200 p-5" role="alert">
      <div className="flex items-start gap-3">
        <AlertIcon className="mt-0.5 shrink-0 text-red-600" />
        <div className="min-w-0 flex-1">
          <p className="text-sm font-semibold text-zinc-900">{title}</p>
          <p className="mt-1 break-words text-sm text-zinc-600">{message}</p>
          {onRetry && retryLabel && (
            <button
              type="button"
              onClick={onRetry}
              className="mt-3 rounded-lg border border-zinc-300 bg-white px-3 py-1.5 text-sm font-medium text-zinc-700 shadow-xs hover:bg-zinc-50"
            >
              {retryLabel}
            </button>
          )}
        </div>
      </div>
    </Card>
  );
}
