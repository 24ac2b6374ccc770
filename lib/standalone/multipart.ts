import type { NextFunction, Request, Response } from "express";
import multer from "multer";
import type { UploadedFile } from "../admin/upload.js";

/** The source form has a handful of fields; the pasted OPML (`xml`) is the only long one. */
const MAX_FIELDS = 16;
/** Room for the short fields and the multipart framing, beside one file and one pasted list. */
const FRAMING_BYTES = 64 * 1024;

const tooLarge = () => Object.assign(new Error("Multipart body too large"), { status: 413 });

/**
 * Parses a multipart form for the routes that take an upload (mounted after
 * the login, on those routes only), as Indiekit's express-fileupload does:
 * fields into `request.body`, the file into `request.files` keyed by field
 * name, `{ name, data, size, mimetype, truncated }`. One file of at most
 * `maxBytes` (the plugin's `maxBodySize`; a larger one arrives cut short and
 * `truncated`), at most MAX_FIELDS fields, and the whole body at most one
 * file plus one pasted list of that size: a longer body is refused (413)
 * before it is read.
 */
export function parseUpload(maxBytes: number) {
  const upload = multer({
    storage: multer.memoryStorage(),
    limits: {
      files: 1,
      fileSize: maxBytes,
      fields: MAX_FIELDS,
      fieldSize: maxBytes,
      parts: MAX_FIELDS + 1,
      headerPairs: 50,
    },
  }).any();
  const maxTotal = 2 * maxBytes + FRAMING_BYTES;
  return (request: Request, response: Response, next: NextFunction) => {
    if (!request.is("multipart/form-data")) return next();
    const declared = Number(request.get("content-length"));
    if (declared > maxTotal) {
      response.set("Connection", "close");
      return next(tooLarge());
    }
    let received = 0;
    upload(request, response, (error: unknown) => {
      if (received > maxTotal) return;
      request.body ??= {};
      const files: Record<string, UploadedFile> = {};
      for (const file of (request.files as Express.Multer.File[] | undefined) ?? []) {
        files[file.fieldname] ??= {
          name: file.originalname,
          data: file.buffer,
          size: file.size,
          mimetype: file.mimetype,
          truncated: false,
        };
      }
      if (error instanceof multer.MulterError && error.code === "LIMIT_FILE_SIZE" && error.field) {
        files[error.field] = {
          name: error.field,
          data: Buffer.alloc(0),
          size: 0,
          mimetype: "application/octet-stream",
          truncated: true,
        };
      } else if (error instanceof multer.MulterError) {
        return next(tooLarge());
      } else if (error) {
        return next(Object.assign(new Error("Malformed multipart body"), { status: 400 }));
      }
      (request as unknown as { files: unknown }).files = files;
      next();
    });
    // A body sent without a length is counted as it comes (beside the parser, which was given it first) and cut off past the limit.
    request.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxTotal) request.destroy();
    });
  };
}
