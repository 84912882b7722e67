import { useCallback, useEffect, useState } from "react";

export type ThemeChoice = "system" | "light" | "dark";

const storageKey = "manent.theme";

export function loadTheme(): ThemeChoice {
  try {
    const v = localStorage.getItem(storageKey);
    return v === "light" || v === "dark" ? v : "system";
  } catch {
    return "system";
  }
}

/** Sets data-theme on <html>; "system" leaves it to prefers-color-scheme in the CSS. */
export function applyTheme(choice: ThemeChoice) {
  const root = document.documentElement;
  if (choice === "system") delete root.dataset.theme;
  else root.dataset.theme = choice;
}

export function useTheme(): [ThemeChoice, (c: ThemeChoice) => void] {
  const [choice, setChoice] = useState<ThemeChoice>(loadTheme);
  useEffect(() => applyTheme(choice), [choice]);
  const set = useCallback((c: ThemeChoice) => {
    try {
      if (c === "system") localStorage.removeItem(storageKey);
      else localStorage.setItem(storageKey, c);
    } catch {
      // without storage the choice lasts for this page
    }
    setChoice(c);
  }, []);
  return [choice, set];
}

const next: Record<ThemeChoice, ThemeChoice> = { system: "light", light: "dark", dark: "system" };
const labels: Record<ThemeChoice, string> = { system: "Theme: system", light: "Theme: light", dark: "Theme: dark" };

export function ThemeToggle() {
  const [choice, setChoice] = useTheme();
  return (
    <button
      type="button"
      className="m-button m-button-quiet"
      onClick={() => setChoice(next[choice])}
      title={`${labels[choice]} (click for ${next[choice]})`}
    >
      <span aria-hidden="true">{choice === "dark" ? "☾" : choice === "light" ? "☀" : "◐"}</span> <span className="m-theme-label">{labels[choice]}</span>
    </button>
  );
}
