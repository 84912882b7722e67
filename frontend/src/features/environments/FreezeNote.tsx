import { Link } from "react-router";
import { useQuery } from "urql";
import { useNow } from "../../shared/time";
import { calendarPath, freezeHeadline, freezeNote, freezeState } from "./freezes";
import { FreezeCalendarQuery } from "./queries";
import styles from "./EnvironmentsPage.module.css";

/**
 * The freeze line of a matrix cell, linking to the environment's calendar:
 * nothing when no freeze is in force or planned in the next 30 days (or
 * when the calendar cannot be read: the cell is about releases first).
 */
export function FreezeNote({ tenant, application, environment }: { tenant: string; application: string; environment: string }) {
  const [result] = useQuery({ query: FreezeCalendarQuery, variables: { tenant, application, environment, to: null } });
  const now = useNow();
  const cal = result.data?.freezeCalendar;
  if (!cal) return null;
  const state = freezeState(cal.windows, now);
  const note = freezeNote(state, now);
  if (!note) return null;
  return (
    <Link
      to={calendarPath(tenant, application, environment)}
      className={`${styles.freeze} ${state.kind === "frozen" ? styles.frozen : ""}`}
      title={freezeHeadline(state, now, cal)}
      data-freeze={state.kind}
    >
      <span aria-hidden="true">❄</span> {note}
    </Link>
  );
}
