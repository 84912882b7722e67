import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./app/App";
import { applyTheme, loadTheme } from "./shared/theme";
import "./shared/styles.css";

// Before the first paint, so a dark room never sees a white flash.
applyTheme(loadTheme());

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
