/**
 * The modules under mutation testing, in groups: each group's modules and the
 * tests that guard them. Stryker's command runner cannot tell which test
 * covers which mutant, so every mutant of a group runs that group's tests,
 * and only those (see stryker.config.mjs, scripts/mutation.mjs).
 */
export const groups = {
  "address-policy": {
    mutate: ["lib/http/address-policy.ts"],
    tests: ["test/http/address-policy.test.ts", "test/http/private-network.test.ts"],
  },
  signature: {
    mutate: ["lib/push/signature.ts"],
    tests: ["test/push/signature.test.ts"],
  },
  "login-csrf": {
    mutate: ["lib/standalone/auth.ts", "lib/standalone/sessions.ts", "lib/admin/csrf.ts"],
    tests: ["test/standalone/authenticator.test.ts", "test/standalone/sessions.test.ts", "test/admin/csrf.test.ts"],
  },
  sanitiser: {
    mutate: ["lib/feeds/sanitize.ts"],
    tests: ["test/feeds/sanitize.test.ts"],
  },
  serialisation: {
    mutate: ["lib/api/serialize.ts"],
    tests: ["test/api/serialize.test.ts"],
  },
  schedule: {
    mutate: ["lib/schedule/*.ts"],
    tests: ["test/schedule/health.test.ts", "test/schedule/policy.test.ts", "test/schedule/server-hints.test.ts"],
  },
};
