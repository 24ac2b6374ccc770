import type { Response } from "express";
import { isValidId } from "../storage/id.js";

/** Field name → translated message, in the order the fields appear on the form. */
export type FormErrors = Record<string, string>;

type Body = Record<string, unknown> | undefined;

/** A text field, trimmed; a repeated field (an array) counts as absent. */
export function textField(body: Body, name: string): string {
  const value = body?.[name];
  return typeof value === "string" ? value.trim() : "";
}

/** A checkbox: present with any value means checked. */
export function checkboxField(body: Body, name: string): boolean {
  const value = body?.[name];
  return value !== undefined && value !== "" && value !== "false";
}

/** Comma-separated tags: trimmed, empty ones dropped, repeats removed. */
export function parseTags(value: string): string[] {
  return [
    ...new Set(
      value
        .split(",")
        .map((tag) => tag.trim())
        .filter(Boolean),
    ),
  ];
}

/** The `:id` route parameter when it is a well-formed id (lower-cased), else null. */
export function idParam(value: unknown): string | null {
  return isValidId(value) ? String(value).toLowerCase() : null;
}

/** Escapes text for HTML: the hosts' component macros output text options unescaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * Renders a form page. With errors: status 422, the host's error summary
 * list (`errorSummaryList`, links to each field; not `errorList`, a global function of the host frontend) and per-field `fieldErrors`
 * shaped for the component macros' `errorMessage` option. Messages are
 * escaped here: they may quote what a remote server or the owner sent.
 */
export function renderForm(
  response: Response,
  view: string,
  locals: Record<string, unknown>,
  errors: FormErrors = {},
): void {
  const names = Object.keys(errors);
  const fieldErrors = Object.fromEntries(names.map((name) => [name, { text: escapeHtml(errors[name]) }]));
  const errorSummaryList = names.map((name) => ({ text: escapeHtml(errors[name]), href: `#${name}` }));
  if (names.length > 0) response.status(422);
  response.render(view, { ...locals, errors: names.length > 0 ? errors : null, errorSummaryList, fieldErrors });
}

/** Responds 404 with the admin's not-found page (its breadcrumb leads to the dashboard). */
export function notFound(response: Response): void {
  const __ = response.locals.__;
  const mountPath: string | undefined = response.locals.blogroll?.mountPath;
  response.status(404).render("blogroll-not-found", {
    title: __("blogroll.notFound.title"),
    // Both hosts' layouts then start the tab's title with "Error: ".
    errors: { page: __("blogroll.notFound.title") },
    ...(mountPath ? { parent: { text: __("blogroll.title"), href: mountPath } } : {}),
  });
}
