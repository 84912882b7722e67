import { Link } from "react-router";
import { useNow } from "../../shared/time";
import { calendarPath, freezeHeadline, freezeNote, freezeState, type FreezeWindow } from "./freezes";
import styles from "./EnvironmentsPage.module.css";

export interface CellCalendar {
  from: string;
  to: string;
  windows: FreezeWindow[];
}

/**
 * The freeze line of a matrix cell, linking to the environment's calendar:
 * nothing when no freeze is in force or planned in the next 30 days (or
 * when the calendar cannot be read: the cell is about releases first). The
 * matrix reads every cell's calendar in one request.
 */
export function FreezeNote({ tenant, application, environment, calendar }: { tenant: string; application: string; environment: string; calendar: CellCalendar | undefined }) {
  const now = useNow();
  if (!calendar) return null;
  const state = freezeState(calendar.windows, now);
  const note = freezeNote(state, now);
  if (!note) return null;
  return (
    <Link
      to={calendarPath(tenant, application, environment)}
      className={`${styles.freeze} ${state.kind === "frozen" ? styles.frozen : ""}`}
      title={freezeHeadline(state, now, calendar)}
      data-freeze={state.kind}
    >
      <span aria-hidden="true">❄</span> {note}
    </Link>
  );
}
