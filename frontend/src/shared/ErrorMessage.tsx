import type { CombinedError } from "@urql/core";
import { describeError } from "./errors";

export interface ErrorMessageProps {
  error: CombinedError;
  /** What failed, as a person would say it: "Loading the deploys". */
  context?: string;
  onRetry?: () => void;
}

/** The one component that turns an error into words, by its extensions.code. */
export function ErrorMessage({ error, context, onRetry }: ErrorMessageProps) {
  const d = describeError(error);
  return (
    <div className="m-error" role="alert" data-code={d.code}>
      <p className="m-error-title">
        {context ? `${context}: ` : ""}
        {d.title}
      </p>
      {d.detail && <p className="m-error-detail">{d.detail}</p>}
      {d.items && d.items.length > 0 && (
        <ul className="m-error-items">
          {d.items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
      {onRetry && (
        <button type="button" className="m-button" onClick={onRetry}>
          Retry
        </button>
      )}
    </div>
  );
}
