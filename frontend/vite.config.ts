import react from "@vitejs/plugin-react";
import { defineConfig } from "vitest/config";
import { precompressPlugin } from "./build/precompress.ts";

// The dev server proxies the API to a running manent-server (make run), so
// `npm run dev` shows live data: MANENT_SERVER=http://127.0.0.1:8080 by default.
const apiTarget = process.env.MANENT_SERVER ?? "http://127.0.0.1:8080";

export default defineConfig({
  plugins: [react(), precompressPlugin()],
  build: {
    // frontend/embed.go embeds this folder into manent-server. Emptying it
    // removes the committed dist/.gitkeep: public/.gitkeep puts it back.
    outDir: "dist",
    emptyOutDir: true,
    target: "es2022",
    chunkSizeWarningLimit: 1024,
  },
  server: {
    proxy: {
      "/graphql": { target: apiTarget, ws: true, changeOrigin: false },
      "/api": { target: apiTarget },
      "/auth": { target: apiTarget },
    },
  },
  test: {
    environment: "happy-dom",
    globals: true,
    setupFiles: ["src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}", "build/**/*.test.ts"],
    css: { modules: { classNameStrategy: "non-scoped" } },
    restoreMocks: true,
  },
});
