import type { NextFunction, Request, Response } from "express";
import multer from "multer";
import type { UploadedFile } from "../admin/upload.js";

/** Largest file the standalone host accepts in a form; the plugin applies its own, smaller limit. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;

/**
 * Parses multipart bodies before any plugin route, as Indiekit's
 * express-fileupload does: fields into `request.body`, files into
 * `request.files` keyed by field name, each `{ name, data, size, mimetype,
 * truncated }`. A file over the limit arrives cut short and `truncated`.
 */
export function parseMultipart() {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: { fileSize: MAX_FILE_BYTES, files: 5, fields: 100, fieldSize: MAX_FILE_BYTES },
  }).any();
  return (request: Request, response: Response, next: NextFunction) => {
    if (!request.is("multipart/form-data")) return next();
    upload(request, response, (error: unknown) => {
      request.body ??= {};
      const files: Record<string, UploadedFile> = {};
      for (const file of (request.files as Express.Multer.File[] | undefined) ?? []) {
        files[file.fieldname] ??= { name: file.originalname, data: file.buffer, size: file.size, mimetype: file.mimetype, truncated: false };
      }
      if (error instanceof multer.MulterError && error.code === "LIMIT_FILE_SIZE" && error.field) {
        files[error.field] = { name: error.field, data: Buffer.alloc(0), size: 0, mimetype: "application/octet-stream", truncated: true };
      } else if (error) {
        return next(Object.assign(new Error("Malformed multipart body"), { status: 400 }));
      }
      (request as unknown as { files: unknown }).files = files;
      next();
    });
  };
}
