import { Client, getOperationName, makeErrorResult, makeResult, type Exchange, type Operation } from "@urql/core";
import type { ReactNode } from "react";
import { Provider } from "urql";
import { filter, fromValue, makeSubject, map, mergeMap, pipe, share, takeUntil, type Subject } from "wonka";

/** Answers a query or mutation by its variables: its data, or an Error the request fails with. */
export type Answer = (variables: Record<string, unknown>) => Record<string, unknown> | Error;

export interface FakeApi {
  client: Client;
  /** Sends data to every open subscription of the operation named name. */
  push(name: string, data: Record<string, unknown>): void;
  /** The names of the operations received so far, subscriptions included. */
  received: string[];
  wrapper: (props: { children: ReactNode }) => ReactNode;
}

/**
 * A real urql client whose one exchange plays the server: queries and
 * mutations get the answer named after them, subscriptions get what the
 * test pushes. Views run unchanged (cache, request policies, teardown).
 */
export function fakeApi(answers: Record<string, Answer>): FakeApi {
  const subjects = new Map<string, Subject<Record<string, unknown>>>();
  const subject = (name: string) => {
    let s = subjects.get(name);
    if (!s) subjects.set(name, (s = makeSubject<Record<string, unknown>>()));
    return s;
  };
  const received: string[] = [];
  const exchange: Exchange = () => (ops$) => {
    const shared = pipe(ops$, share);
    return pipe(
      shared,
      filter((op: Operation) => op.kind !== "teardown"),
      mergeMap((op: Operation) => {
        const name = getOperationName(op.query) ?? "";
        received.push(name);
        if (op.kind === "subscription") {
          return pipe(
            subject(name).source,
            map((data) => makeResult(op, { data })),
            takeUntil(pipe(shared, filter((o: Operation) => o.kind === "teardown" && o.key === op.key))),
          );
        }
        const answer = answers[name];
        const data = answer ? answer(op.variables as Record<string, unknown>) : new Error(`fakeApi: no answer for ${name}`);
        return fromValue(data instanceof Error ? makeErrorResult(op, data) : makeResult(op, { data }));
      }),
    );
  };
  const client = new Client({ url: "http://manent.test/graphql", exchanges: [exchange] });
  return {
    client,
    received,
    push: (name, data) => subject(name).next(data),
    wrapper: ({ children }) => <Provider value={client}>{children}</Provider>,
  };
}
