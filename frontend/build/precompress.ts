import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants, gzip } from "node:zlib";
import type { Plugin } from "vite";

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

/** What is worth compressing: text. Images and fonts are compressed already. */
const compressible = new Set([".js", ".mjs", ".css", ".html", ".svg", ".json", ".txt", ".map", ".wasm"]);

/** Below this, the bytes a variant saves do not pay for a second file and a header. */
export const minSize = 1024;

export interface Compressed {
  /** The file, relative to the folder compressed. */
  file: string;
  size: number;
  br?: number;
  gzip?: number;
}

async function* files(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* files(full);
    else if (entry.isFile()) yield full;
  }
}

/**
 * Writes a brotli (.br) and a gzip (.gz) variant beside every text file of
 * dir, at the strongest settings: it runs once per build and the server
 * sends the variants as they are (server/spa.go), so no request compresses
 * anything. A variant no smaller than its file is not written.
 */
export async function precompress(dir: string): Promise<Compressed[]> {
  const out: Compressed[] = [];
  for await (const file of files(dir)) {
    if (!compressible.has(path.extname(file))) continue;
    const { size } = await stat(file);
    if (size < minSize) continue;
    const data = await readFile(file);
    const [br, gzipped] = await Promise.all([
      brotli(data, {
        params: {
          [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: size,
        },
      }),
      gz(data, { level: constants.Z_BEST_COMPRESSION }),
    ]);
    const entry: Compressed = { file: path.relative(dir, file), size };
    if (br.length < size) {
      await writeFile(`${file}.br`, br);
      entry.br = br.length;
    }
    if (gzipped.length < size) {
      await writeFile(`${file}.gz`, gzipped);
      entry.gzip = gzipped.length;
    }
    out.push(entry);
  }
  return out;
}

/**
 * The build step that precompresses the hashed files of assets/ once Vite
 * has written them. index.html stays as it is: it is small and revalidated
 * on every load.
 */
export function precompressPlugin(): Plugin {
  let assets = "";
  return {
    name: "manent-precompress",
    apply: "build",
    configResolved(config) {
      assets = path.resolve(config.root, config.build.outDir, config.build.assetsDir);
    },
    async closeBundle() {
      const done = await precompress(assets);
      const sum = (f: (c: Compressed) => number | undefined) => done.reduce((n, c) => n + (f(c) ?? c.size), 0);
      const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;
      this.info(`${done.length} files: ${kb(sum((c) => c.size))}, brotli ${kb(sum((c) => c.br))}, gzip ${kb(sum((c) => c.gzip))}`);
    },
  };
}
