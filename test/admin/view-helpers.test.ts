import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { NextFunction, Request, Response } from "express";
import { adminLocals } from "../../lib/admin/view-helpers.js";
import type { BlogrollContext } from "../../lib/context.js";

/** Runs the admin locals middleware on a request with this query, as Indiekit would (its `__` and `request.locale`). */
function localsFor(query: Record<string, unknown>): Record<string, unknown> {
  const request = { query, path: "/blogs", locale: "de", get: () => undefined } as unknown as Request;
  const locals: Record<string, unknown> = { __: (key: string) => `«${key}»` };
  let called = false;
  adminLocals({ options: { mountPath: "/blogrollapi" } } as BlogrollContext)(
    request,
    { locals } as unknown as Response,
    (() => {
      called = true;
    }) as NextFunction,
  );
  assert.ok(called);
  return locals;
}

describe("admin locals (notices for the host's banner, section navigation)", () => {
  it("a success notice is the text the host's layout shows as `success`", () => {
    assert.equal(localsFor({ notice: "blogSaved" }).success, "«blogroll.notice.blogSaved»");
  });

  it("a failure notice is plain text: Indiekit's banner renders `error` as Markdown, which fails on anything but a string", () => {
    assert.equal(localsFor({ notice: "blogRefreshFailed" }).error, "«blogroll.notice.blogRefreshFailed»");
  });

  it("ignores unknown or repeated notices, so a link cannot put its own text in a banner", () => {
    for (const notice of ["<b>owned</b>", "toString", ["blogSaved", "blogSaved"]]) {
      const locals = localsFor({ notice });
      assert.equal(locals.success, undefined);
      assert.equal(locals.error, undefined);
    }
  });

  it("marks the current section, with dates formatted in the request's language", () => {
    const locals = localsFor({});
    const blogroll = locals.blogroll as { sections: Array<{ href: string; current: boolean }> };
    assert.deepEqual(
      blogroll.sections.map((section) => [section.href, section.current]),
      [
        ["/blogrollapi", false],
        ["/blogrollapi/sources", false],
        ["/blogrollapi/blogs", true],
        ["/blogrollapi/suggestions", false],
      ],
    );
    assert.match((locals.formatDate as (value: unknown) => string)(new Date("2024-03-05T10:20:00Z")), /05\.03\.2024/);
  });
});

describe("numbers in the reader's locale", () => {
  it("formatNumber groups digits as the request's language does", () => {
    const format = localsFor({}).formatNumber as (value: number) => string;
    assert.equal(format(1234567), "1.234.567", "German grouping (request.locale de)");
  });
});
