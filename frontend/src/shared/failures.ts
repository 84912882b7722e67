/**
 * A deploy's error as a person reads it. The server records what failed as
 * its Go error chain ("health check http://x/h: Get \"http://x/h\": dial tcp
 * 10.0.0.5:80: connect: connection refused"): precise, but not words. Each
 * kind of failure gets one sentence; the chain stays available, as detail.
 */
export type FailureKind =
  | "internal"
  | "blocked"
  | "tls"
  | "dns"
  | "refused"
  | "steptimeout"
  | "timeout"
  | "network"
  | "http"
  | "permission"
  | "notfound"
  | "other";

export interface Failure {
  kind: FailureKind;
  /** One sentence: what failed and what it means. */
  title: string;
  /** The error as recorded, for a disclosure; null when the title is it. */
  detail: string | null;
}

/** What manent's own prefixes say failed, as the subject of the sentence. */
const subjects: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^health check (\S+)$/, (m) => `The health check ${m[1]}`],
  [/^download artifact$/, () => "The artifact's download"],
  [/^open artifact$/, () => "The artifact"],
  [/^secret (\S+)$/, (m) => `Secret ${m[1]}`],
  [/^open change ticket$/, () => "Opening the change ticket"],
  [/^close change (\S+)$/, (m) => `Closing change ${m[1]}`],
  [/^target (\S+)$/, (m) => `Target ${m[1]}`],
];

const statusTexts: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  409: "Conflict",
  410: "Gone",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function statusMeaning(status: number): string {
  if (status === 401 || status === 403) return "access was refused; check the credentials it is called with";
  if (status === 404 || status === 410) return "nothing is there at that address";
  if (status === 408 || status === 429) return "it asks to be called again later";
  if (status >= 500) return "a failure on its side";
  if (status >= 400) return "it refused the request";
  return "not the answer expected";
}

/** "dial tcp 10.0.0.5:80: ..." names the address that was called. */
const dialed = (raw: string) => raw.match(/\bdial \w+ (\S+?):? /)?.[1];

type Rule = { kind: FailureKind; test: RegExp; say: (raw: string, m: RegExpMatchArray) => string };

// In order: the first rule that matches decides. A reference to the worker
// log comes first: it is manent's own failure, whatever it wrapped.
const rules: Rule[] = [
  {
    kind: "internal",
    test: /internal error \(reference (\w+)/,
    say: (_, m) => `an internal failure of manent, not of the deploy's own work: give the reference ${m[1]} to an administrator (it is in the worker log)`,
  },
  {
    kind: "blocked",
    test: /redirect refused/,
    say: () => "it answered with a redirect, which manent never follows: use the final URL",
  },
  {
    kind: "blocked",
    test: /destination address refused/,
    say: () => "manent's outbound rules refuse this address (link-local and cloud metadata addresses are never called)",
  },
  {
    kind: "tls",
    test: /x509: |tls: |certificate (?:signed by unknown authority|has expired|is not valid)/,
    say: (raw) => `the secure connection${dialed(raw) ? ` to ${dialed(raw)}` : ""} failed: its certificate could not be verified`,
  },
  {
    kind: "dns",
    test: /lookup (\S+?)(?: on \S+)?: (?:no such host|server misbehaving|Temporary failure in name resolution)/,
    say: (_, m) => `the host name ${m[1]} could not be resolved (DNS): check its spelling and the resolver`,
  },
  {
    kind: "refused",
    test: /connection refused|ECONNREFUSED/,
    say: (raw) => `the connection${dialed(raw) ? ` to ${dialed(raw)}` : ""} was refused: nothing is listening there, or the service is still starting`,
  },
  {
    kind: "steptimeout",
    test: /^(?:.*: )?timed out after (\S+)$/,
    say: (_, m) => `the step ran longer than its time limit (${m[1]}) and was stopped`,
  },
  {
    kind: "timeout",
    test: /i\/o timeout|deadline exceeded|Client\.Timeout exceeded|TLS handshake timeout|ETIMEDOUT/,
    say: (raw) => `no answer in time${dialed(raw) ? ` from ${dialed(raw)}` : ""}: the service is too slow, or the network does not reach it`,
  },
  {
    kind: "network",
    test: /connection reset by peer|broken pipe|network is unreachable|no route to host|unexpected EOF|: EOF$/,
    say: (raw) => `the network connection${dialed(raw) ? ` to ${dialed(raw)}` : ""} broke before an answer`,
  },
  {
    kind: "http",
    test: /\bHTTP (\d{3})\b/,
    say: (_, m) => {
      const status = Number(m[1]);
      const text = statusTexts[status];
      return `answered HTTP ${status}${text ? ` ${text}` : ""}: ${statusMeaning(status)}`;
    },
  },
  {
    kind: "permission",
    test: /(?:(?:open|mkdir|remove|rename|stat|lstat|symlink|chmod|unlinkat|readlink) (\/[^:]*): )?(?:permission denied|operation not permitted)/,
    say: (_, m) => `permission denied${m[1] ? ` on ${m[1]}` : ""}: the worker's user may not read or write there`,
  },
  {
    kind: "notfound",
    test: /(?:(?:open|stat|lstat|readlink|remove|rename|chdir) (\/[^:]*): )?no such file or directory/,
    say: (_, m) => (m[1] ? `${m[1]} does not exist` : "a file or directory it needs does not exist"),
  },
];

function subjectOf(raw: string): string | null {
  const head = raw.split(": ", 1)[0] ?? "";
  if (head === raw) return null;
  for (const [re, name] of subjects) {
    const m = head.match(re);
    if (m) return name(m);
  }
  return null;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** The sentence for an error, by its kind; an error of no known kind is already manent's words, and shown as it is. */
export function describeFailure(raw: string): Failure {
  const text = raw.trim();
  // A deploy's own error names the step that failed before the step's error.
  const step = text.match(/^step (\S+) failed: ([\s\S]+)$/);
  if (step) {
    const inner = describeStepError(step[2]!);
    if (inner.kind === "other") return { kind: "other", title: text, detail: null };
    return { ...inner, title: `Step ${step[1]} failed: ${inner.title.charAt(0).toLowerCase()}${inner.title.slice(1)}`, detail: text };
  }
  return describeStepError(text);
}

function describeStepError(text: string): Failure {
  for (const rule of rules) {
    const m = text.match(rule.test);
    if (!m) continue;
    const subject = rule.kind === "internal" ? null : subjectOf(text);
    const sentence = rule.say(text, m);
    const title = subject ? `${subject}: ${sentence}.` : `${capitalize(sentence)}.`;
    return { kind: rule.kind, title, detail: text };
  }
  return { kind: "other", title: text, detail: null };
}
