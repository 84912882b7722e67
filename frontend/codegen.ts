import type { CodegenConfig } from "@graphql-codegen/cli";

// The SPA's GraphQL types come from the server's schema files, never from a
// running server, so `npm run generate` works offline and in CI.
const config: CodegenConfig = {
  schema: "../graph/schema/*.graphqls",
  documents: ["src/**/*.{ts,tsx}", "!src/gql/**/*"],
  ignoreNoDocuments: true,
  generates: {
    "src/gql/": {
      preset: "client",
      presetConfig: { fragmentMasking: false },
      config: {
        scalars: { Time: "string", JSON: "unknown" },
        enumsAsTypes: true,
        useTypeImports: true,
        avoidOptionals: { field: true, inputValue: false, object: true },
        defaultScalarType: "unknown",
      },
    },
  },
};

export default config;
