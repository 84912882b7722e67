import { createContext, useContext, useEffect, useState, type ReactNode } from "react";
import { useQuery } from "urql";
import type { CombinedError } from "@urql/core";
import { useOnReconnect } from "../../shared/api/connection";
import { useSubscriptionEvents } from "../../shared/api/live";
import { type ApprovalItem } from "./inbox";
import { PendingApprovalsQuery, PendingApprovalsSubscription } from "./queries";

interface Pending {
  items: ApprovalItem[];
  loaded: boolean;
  error: CombinedError | null;
  refetch(): void;
}

const PendingContext = createContext<Pending>({ items: [], loaded: false, error: null, refetch: () => {} });

/**
 * The deploys awaiting the viewer's approval, live: one query and one
 * subscription for the whole frame, shared by the nav badge and the inbox.
 * The server pushes the whole list after every change that alters it.
 */
export function PendingApprovalsProvider({ children }: { children: ReactNode }) {
  const [result, refetch] = useQuery({ query: PendingApprovalsQuery });
  const [items, setItems] = useState<ApprovalItem[] | null>(null);
  const [liveError, setLiveError] = useState<CombinedError | null>(null);

  useEffect(() => {
    if (result.data) setItems(result.data.pendingApprovals);
  }, [result.data]);

  useSubscriptionEvents(
    PendingApprovalsSubscription,
    {},
    (data) => {
      setItems(data.pendingApprovals);
      setLiveError(null);
    },
    { onError: setLiveError },
  );
  const again = () => refetch({ requestPolicy: "network-only" });
  useOnReconnect(again);

  const value: Pending = { items: items ?? [], loaded: items !== null, error: result.error ?? liveError, refetch: again };
  return <PendingContext.Provider value={value}>{children}</PendingContext.Provider>;
}

export function usePendingApprovals(): Pending {
  return useContext(PendingContext);
}
