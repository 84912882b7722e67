import type { CombinedError } from "@urql/core";

/** What a person is told about an error: never SQL, stack traces or internal paths. */
export interface Described {
  code: string;
  title: string;
  detail?: string;
  /** Every problem of an invalid descriptor, each with its path. */
  items?: string[];
}

interface GraphQLErrorLike {
  message: string;
  extensions?: Record<string, unknown> | undefined;
}

function firstCoded(errors: readonly GraphQLErrorLike[]): GraphQLErrorLike | undefined {
  return errors.find((e) => typeof e.extensions?.code === "string") ?? errors[0];
}

/** The code of an error, as the server put it in extensions.code ("NETWORK" when it was not reached). */
export function errorCode(error: CombinedError | null | undefined): string | undefined {
  if (!error) return undefined;
  if (error.networkError && error.graphQLErrors.length === 0) return "NETWORK";
  const e = firstCoded(error.graphQLErrors);
  return typeof e?.extensions?.code === "string" ? e.extensions.code : undefined;
}

export function describeError(error: CombinedError): Described {
  const code = errorCode(error) ?? "UNKNOWN";
  const first = firstCoded(error.graphQLErrors);
  const message = first?.message;
  switch (code) {
    case "NETWORK":
      return { code, title: "The server cannot be reached.", detail: "manent retries by itself; check your network or the server." };
    case "UNAUTHENTICATED":
      return { code, title: "You are not signed in.", detail: "Your token is not valid any more: sign in again." };
    case "FORBIDDEN":
      return { code, title: "You are not allowed to do this.", detail: message && message !== "forbidden" ? message : undefined };
    case "NOT_FOUND":
      return { code, title: "Not found.", detail: message ?? "It does not exist, or you may not read it." };
    case "CONFLICT":
      return { code, title: "This conflicts with the current state.", detail: message };
    case "UNPROCESSABLE":
      return { code, title: "The request was refused.", detail: message };
    case "INVALID_DESCRIPTOR": {
      const items = Array.isArray(first?.extensions?.errors)
        ? (first.extensions.errors as unknown[]).map((e) => (typeof e === "string" ? e : JSON.stringify(e)))
        : undefined;
      return { code, title: "The descriptor is invalid.", detail: message, items };
    }
    case "INTERNAL": {
      const id = first?.extensions?.errorId;
      return {
        code,
        title: "Something went wrong on the server.",
        detail: typeof id === "string" ? `Give this error ID to the administrators: ${id}.` : undefined,
      };
    }
    default:
      // gqlgen's own errors about a request (validation, limits) are safe to show.
      return { code, title: "The request failed.", detail: message ?? error.message };
  }
}
