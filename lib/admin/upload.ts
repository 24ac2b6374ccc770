import type { NextFunction, Request, Response } from "express";
import multer from "multer";

/**
 * Parses multipart form posts (the OPML file upload) in memory, at most one
 * file of `maxBytes`. Runs before the CSRF check, which needs the body; the
 * form puts `_csrf` before the file so it is read even when the file is
 * refused. A refused upload is left in `response.locals.uploadError` for the
 * form to report instead of failing the request.
 */
export function parseUpload(maxBytes: number) {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: maxBytes, files: 1, fields: 40, fieldSize: maxBytes },
  }).single("opmlFile");
  return (request: Request, response: Response, next: NextFunction) => {
    if (request.method !== "POST" || !request.is("multipart/form-data")) return next();
    upload(request, response, (error: unknown) => {
      if (error) {
        response.locals.uploadError = error instanceof multer.MulterError ? error.code : "UPLOAD_FAILED";
        request.body ??= {};
      }
      next();
    });
  };
}
