// Lint: ESLint's and typescript-eslint's recommended rules (formatting is Prettier's job).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", ".stryker-tmp/", "reports/", "bench/results/"] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // A leading underscore marks a parameter a signature requires but the body does not read.
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          ignoreRestSiblings: true,
        },
      ],
      // Sanitisers and parsers match control characters on purpose.
      "no-control-regex": "off",
    },
  },
  {
    files: ["widget/**/*.js", "assets/**/*.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
);
