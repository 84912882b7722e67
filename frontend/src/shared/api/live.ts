import { useEffect, useRef } from "react";
import { useClient, type AnyVariables, type TypedDocumentNode } from "urql";
import type { CombinedError } from "@urql/core";

/**
 * Runs onEvent for every event of a subscription, in order. (urql's
 * useSubscription hands React the latest result, and two events that arrive
 * before a render would be seen as one.) Pass pause to wait for variables.
 */
export function useSubscriptionEvents<Data, Variables extends AnyVariables>(
  query: TypedDocumentNode<Data, Variables>,
  variables: Variables,
  onEvent: (data: Data) => void,
  options: { pause?: boolean; onError?: (error: CombinedError) => void } = {},
) {
  const client = useClient();
  const handlers = useRef({ onEvent, onError: options.onError });
  handlers.current = { onEvent, onError: options.onError };
  const key = JSON.stringify(variables);
  useEffect(() => {
    if (options.pause) return;
    const vars = JSON.parse(key) as Variables;
    const { unsubscribe } = client.subscription(query, vars).subscribe((result) => {
      if (result.error) handlers.current.onError?.(result.error);
      if (result.data) handlers.current.onEvent(result.data);
    });
    return unsubscribe;
  }, [client, query, key, options.pause]);
}
