import { useEffect, useRef, useState } from "react";
import type { DeploymentState } from "../../gql/graphql";
import { allDeploymentStates, deploymentStateInfo } from "../../shared/states";
import { emptyFilters, fromLocalInput, hasFilters, ranges, toLocalInput, type Filters, type RangeKey, type TextKey } from "./filters";
import styles from "./DeploymentsPage.module.css";

export interface Suggestions {
  tenant: string[];
  application: string[];
  environment: string[];
}

export interface DeploymentFiltersProps {
  value: Filters;
  onChange(next: Filters): void;
  suggestions?: Suggestions | undefined;
  /** How long typing may pause before the list follows (ms). */
  debounceMs?: number;
}

const textLabels: Record<TextKey, string> = { tenant: "Tenant", application: "Application", environment: "Environment", requester: "Requester" };

function TextFilter({
  name,
  value,
  onCommit,
  options,
  debounceMs,
}: {
  name: TextKey;
  value: string;
  onCommit(v: string): void;
  options?: string[] | undefined;
  debounceMs: number;
}) {
  const [text, setText] = useState(value);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // What this field last wrote to the URL: the echo of its own write must
  // not overwrite what was typed since (a lost keystroke), while a change
  // from elsewhere (Back, "Clear filters", a link) must show.
  const committed = useRef(value);
  useEffect(() => {
    if (value !== committed.current) {
      committed.current = value;
      setText(value);
    }
  }, [value]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const commit = (v: string) => {
    committed.current = v;
    onCommit(v);
  };
  const listId = options?.length ? `filter-${name}-options` : undefined;
  return (
    <label className="m-field">
      <span>{textLabels[name]}</span>
      <input
        className="m-input"
        name={name}
        value={text}
        list={listId}
        placeholder="any"
        onChange={(e) => {
          const v = e.target.value;
          setText(v);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => commit(v.trim()), debounceMs);
        }}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            clearTimeout(timer.current);
            commit(text.trim());
          }
        }}
      />
      {listId && (
        <datalist id={listId}>
          {options!.map((o) => (
            <option key={o} value={o} />
          ))}
        </datalist>
      )}
    </label>
  );
}

/** The filter bar of the deploy list; every change goes to the URL through onChange. */
export function DeploymentFilters({ value, onChange, suggestions, debounceMs = 350 }: DeploymentFiltersProps) {
  const set = (patch: Partial<Filters>) => onChange({ ...value, ...patch });
  const stateValue = value.states.length === 0 ? "" : value.states.length === 1 ? value.states[0] : "several";
  const rangeValue = value.since || (value.from || value.to ? "custom" : "");
  return (
    <form role="search" aria-label="Filter deploys" className={styles.filters} onSubmit={(e) => e.preventDefault()}>
      {(["tenant", "application", "environment"] as const).map((k) => (
        <TextFilter key={k} name={k} value={value[k]} onCommit={(v) => set({ [k]: v })} options={suggestions?.[k]} debounceMs={debounceMs} />
      ))}
      <label className="m-field">
        <span>State</span>
        <select
          className="m-select"
          name="state"
          value={stateValue}
          onChange={(e) => set({ states: e.target.value ? [e.target.value as DeploymentState] : [] })}
        >
          <option value="">any</option>
          {value.states.length > 1 && (
            <option value="several" disabled>
              {value.states.map((s) => deploymentStateInfo(s).label).join(", ")}
            </option>
          )}
          {allDeploymentStates.map((s) => (
            <option key={s} value={s}>
              {deploymentStateInfo(s).label}
            </option>
          ))}
        </select>
      </label>
      <TextFilter name="requester" value={value.requester} onCommit={(v) => set({ requester: v })} debounceMs={debounceMs} />
      <label className="m-field">
        <span>Created</span>
        <select
          className="m-select"
          name="since"
          value={rangeValue}
          onChange={(e) => {
            const v = e.target.value;
            if (v === "custom") set({ since: "", from: value.from || new Date(Date.now() - 86_400_000).toISOString(), to: value.to });
            else set({ since: v as RangeKey | "", from: "", to: "" });
          }}
        >
          <option value="">any time</option>
          {(Object.keys(ranges) as RangeKey[]).map((k) => (
            <option key={k} value={k}>
              {ranges[k].label}
            </option>
          ))}
          <option value="custom">Between…</option>
        </select>
      </label>
      {rangeValue === "custom" && (
        <>
          <label className="m-field">
            <span>From</span>
            <input className="m-input" type="datetime-local" name="from" value={toLocalInput(value.from)} onChange={(e) => set({ from: fromLocalInput(e.target.value) })} />
          </label>
          <label className="m-field">
            <span>To</span>
            <input className="m-input" type="datetime-local" name="to" value={toLocalInput(value.to)} onChange={(e) => set({ to: fromLocalInput(e.target.value) })} />
          </label>
        </>
      )}
      <div className={styles.filterActions}>
        <button type="button" className="m-button m-button-quiet" onClick={() => onChange(emptyFilters)} disabled={!hasFilters(value)}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
