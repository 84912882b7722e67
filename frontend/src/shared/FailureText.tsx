import { describeFailure } from "./failures";

export interface FailureTextProps {
  error: string;
  /** Before the sentence, in bold: "Failed:". */
  label?: string;
  /** Only the sentence, for lists and tables: the detail is on the deploy's page. */
  brief?: boolean;
}

/**
 * A deploy's error in words, one sentence by its kind (connection refused,
 * timeout, DNS, HTTP status, permission, missing file, internal reference),
 * with the error as recorded behind a disclosure.
 */
export function FailureText({ error, label, brief = false }: FailureTextProps) {
  const f = describeFailure(error);
  if (brief) {
    return (
      <span data-failure-kind={f.kind} title={f.title}>
        {f.title}
      </span>
    );
  }
  return (
    <div className="m-failure" data-failure-kind={f.kind}>
      <p className="m-failure-title">
        {label && <strong>{label} </strong>}
        {f.title}
      </p>
      {f.detail && (
        <details className="m-failure-detail">
          <summary>Details</summary>
          <code className="m-mono">{f.detail}</code>
        </details>
      )}
    </div>
  );
}
