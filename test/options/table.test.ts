import assert from "node:assert/strict";
import { describe, it } from "node:test";
import BlogrollEndpoint from "../../index.js";
import {
  defaultOptions,
  displayedOptions,
  hostEnvironmentDefaults,
  OPTIONS,
  OptionsError,
  optionsFromEnvironment,
  resolveOptions,
} from "../../lib/options.js";

/** A value of the wrong type for each option: a boolean where text is wanted, text elsewhere. */
function wrongValue(kind: string): unknown {
  return kind === "boolean" ? "yes" : kind === "integer" || kind === "number" ? "often" : true;
}

describe("the options table", () => {
  it("gives every option its default, and each default passes its own check", () => {
    assert.deepEqual(
      Object.keys(defaultOptions),
      OPTIONS.map(([name]) => name),
    );
    assert.deepEqual(resolveOptions({}), defaultOptions);
  });

  it("refuses a value of the wrong kind for every option, naming the option, what it must be and what was given", () => {
    for (const [name, option] of OPTIONS) {
      const value = wrongValue(option.kind);
      assert.throws(
        () => resolveOptions({ [name]: value }),
        (error: unknown) =>
          error instanceof OptionsError &&
          error.message.startsWith(`indiekit-endpoint-blogroll: option "${name}" must be `),
        name,
      );
      if (!option.secret)
        assert.throws(
          () => resolveOptions({ [name]: value }),
          { message: new RegExp(`\\(got ${JSON.stringify(value)}\\)$`) },
          name,
        );
    }
  });

  it("checks each number against its bounds, whole numbers where the kind says so", () => {
    for (const [name, option] of OPTIONS) {
      if (!("min" in option)) continue;
      assert.throws(() => resolveOptions({ [name]: option.min - 1 }), OptionsError, `${name} below its minimum`);
      assert.equal(resolveOptions({ minFetchInterval: 1000, [name]: option.min })[name], option.min);
      const { max } = option;
      if (max !== undefined)
        assert.throws(() => resolveOptions({ [name]: max + 1 }), OptionsError, `${name} above its maximum`);
      if (option.kind === "integer")
        assert.throws(() => resolveOptions({ [name]: option.min + 0.5 }), /must be an integer/, name);
    }
  });

  it("never shows a secret option's value in its error", () => {
    assert.throws(
      () => resolveOptions({ mongodbUrl: "https://ada:hunter2@db.example/blog" }),
      (error: unknown) => {
        const { message } = error as Error;
        return (
          message === 'indiekit-endpoint-blogroll: option "mongodbUrl" must be a mongodb:// or mongodb+srv:// URL' &&
          !message.includes("hunter2")
        );
      },
    );
  });

  it("shows the host neither unset options nor a secret's credentials", () => {
    const shown = displayedOptions(
      resolveOptions({ mongodbUrl: "mongodb+srv://ada:hunter2@db.example/blog", publicUrl: "https://b.example/" }),
    );
    assert.equal(shown.mongodbUrl, "mongodb+srv://db.example/blog");
    assert.equal(shown.publicUrl, "https://b.example/");
    assert.deepEqual(
      Object.keys(shown).sort(),
      OPTIONS.map(([name]) => name)
        .filter((name) => !["ownerName", "locale", "riverHomePageUrl"].includes(name))
        .sort(),
    );
  });
});

describe("options from the environment", () => {
  it("standalone: each option's variable, unset or empty ones left out", () => {
    const env = {
      BLOGROLL_DATABASE: "/tmp/b.db",
      MONGODB_URL: "mongodb://db/x",
      BLOGROLL_PUBLIC_URL: "https://b.example",
      BLOGROLL_OTHER: "1",
      PATH: "/bin",
    };
    assert.deepEqual(optionsFromEnvironment(env), {
      databasePath: "/tmp/b.db",
      mongodbUrl: "mongodb://db/x",
      publicUrl: "https://b.example",
    });
    assert.deepEqual(optionsFromEnvironment({ BLOGROLL_DATABASE: "", MONGODB_URL: undefined }), {});
  });

  it("inside Indiekit: only MONGODB_URL, as a default the plugin's configuration overrides", () => {
    assert.deepEqual(hostEnvironmentDefaults({ BLOGROLL_DATABASE: "/tmp/b.db", MONGODB_URL: "mongodb://db/x" }), {
      mongodbUrl: "mongodb://db/x",
    });
    const saved = process.env.MONGODB_URL;
    process.env.MONGODB_URL = "mongodb://env.example/blog";
    try {
      assert.equal(new BlogrollEndpoint({}).settings.mongodbUrl, "mongodb://env.example/blog");
      assert.equal(
        new BlogrollEndpoint({ mongodbUrl: "mongodb://config.example/blog" }).settings.mongodbUrl,
        "mongodb://config.example/blog",
      );
      assert.equal(new BlogrollEndpoint({ mongodbUrl: null }).settings.mongodbUrl, null);
    } finally {
      if (saved === undefined) delete process.env.MONGODB_URL;
      else process.env.MONGODB_URL = saved;
    }
  });
});
