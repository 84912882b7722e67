// @vitest-environment node
import { mkdtemp, readdir, readFile, rm, writeFile, mkdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { minSize, precompress } from "./precompress";

let dir = "";
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("precompress", () => {
  it("writes brotli and gzip variants of the text files that decode to them, and leaves the rest", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "manent-precompress-"));
    const js = "export const answer = 42;\n".repeat(400);
    const css = ".m-progress { display: inline-flex; }\n".repeat(100);
    await mkdir(path.join(dir, "nested"));
    await writeFile(path.join(dir, "index-Ab12.js"), js);
    await writeFile(path.join(dir, "nested", "index-Cd34.css"), css);
    await writeFile(path.join(dir, "tiny-Ef56.js"), "export{}".padEnd(minSize - 1, " "));
    await writeFile(path.join(dir, "logo-Gh78.png"), Buffer.alloc(4096, 7));

    const done = await precompress(dir);

    expect(done.map((c) => c.file).sort()).toEqual(["index-Ab12.js", path.join("nested", "index-Cd34.css")]);
    for (const [file, text] of [
      ["index-Ab12.js", js],
      [path.join("nested", "index-Cd34.css"), css],
    ] as const) {
      const full = path.join(dir, file);
      const br = await readFile(`${full}.br`);
      const gz = await readFile(`${full}.gz`);
      expect(brotliDecompressSync(br).toString()).toBe(text);
      expect(gunzipSync(gz).toString()).toBe(text);
      expect(br.length).toBeLessThan(gz.length);
      expect(gz.length).toBeLessThan(text.length);
    }
    const names = (await readdir(dir)).sort();
    expect(names).toEqual(["index-Ab12.js", "index-Ab12.js.br", "index-Ab12.js.gz", "logo-Gh78.png", "nested", "tiny-Ef56.js"]);
  });

  it("writes no variant that would be larger than its file", async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), "manent-precompress-"));
    // Pseudo-random bytes (xorshift32) do not compress.
    let x = 2463534242;
    const noise = Buffer.from(
      Array.from({ length: 4096 }, () => {
        x ^= x << 13;
        x ^= x >>> 17;
        x ^= x << 5;
        return (x >>> 0) & 0xff;
      }),
    );
    await writeFile(path.join(dir, "noise-Ij90.js"), noise);
    const [entry] = await precompress(dir);
    expect(entry?.br).toBeUndefined();
    expect(entry?.gzip).toBeUndefined();
    expect(await readdir(dir)).toEqual(["noise-Ij90.js"]);
  });
});
