/**
 * A targets export is a JSON list of targets, each {host, port, user, labels}
 * or a plain host: shown as one line per target, as it would be reached.
 * A value that is not such a list (it never should be) is shown as it is.
 */
export function targetLines(value: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return [value];
  }
  if (!Array.isArray(parsed)) return [value];
  return parsed.map((t: unknown) => {
    if (typeof t === "string") return t;
    if (t && typeof t === "object" && "host" in t) {
      const { host, port, user } = t as { host?: unknown; port?: unknown; user?: unknown };
      return `${typeof user === "string" && user ? `${user}@` : ""}${String(host)}${typeof port === "number" && port ? `:${port}` : ""}`;
    }
    return JSON.stringify(t);
  });
}

/** How the after section's status reads on the page. */
export function afterStatusLabel(status: string): string {
  switch (status) {
    case "waiting":
      return "Waiting for its dependencies";
    case "satisfied":
      return "All dependencies succeeded";
    case "failed":
      return "A dependency did not succeed";
    default:
      return status;
  }
}
