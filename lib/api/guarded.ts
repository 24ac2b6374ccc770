import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import { QueryError } from "./validate.js";

export type Handler = (request: Request, response: Response) => Promise<void>;

/**
 * Runs a handler; a QueryError becomes its 400 body, anything else is logged
 * and answered with the spec's exact failure body — never a stack.
 */
export function guarded(context: BlogrollContext, failure: Record<string, unknown>, handler: Handler): Handler {
  return async (request, response) => {
    try {
      await handler(request, response);
    } catch (error) {
      if (error instanceof QueryError) {
        response.status(400).json(error.body);
        return;
      }
      context.log.error(`${request.method} ${request.originalUrl ?? request.url} failed`, error);
      if (!response.headersSent) response.status(500).json(failure);
    }
  };
}
