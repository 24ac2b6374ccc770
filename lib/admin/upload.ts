import { decodeText } from "../encoding/decode.js";
import { isBinaryText } from "../opml/problem.js";
import type { Request } from "express";

/**
 * A file from a multipart form, in the shape of express-fileupload, which
 * Indiekit runs before any plugin route (the standalone host fills the same
 * shape with multer): the body is already parsed when the plugin sees it.
 */
export interface UploadedFile {
  name?: string;
  data: Buffer;
  size?: number;
  mimetype?: string;
  /** Set by the parser when the file went over its size limit. */
  truncated?: boolean;
}

/** The file posted in `field`, or null; the first one if several came with that name. */
export function uploadedFile(request: Request, field: string): UploadedFile | null {
  const files = (request as Request & { files?: Record<string, unknown> | null }).files;
  const entry = files?.[field];
  const file = Array.isArray(entry) ? entry[0] : entry;
  return file && typeof file === "object" && Buffer.isBuffer((file as UploadedFile).data)
    ? (file as UploadedFile)
    : null;
}

/** What an uploaded text file gave: its text, or why it gave none. */
export interface UploadedText {
  text: string;
  /** `truncated`: cut at the size limit; `binary`: not a text document (an image, a PDF, an archive). */
  problem: "truncated" | "binary" | null;
}

/**
 * The text of an uploaded file, decoded as fetched documents are. A file cut
 * at the size limit or one that is not text gives none, so half a document
 * or binary garbage never lands in a form field.
 */
export function uploadedText(file: UploadedFile | null): UploadedText {
  if (!file || file.data.length === 0) return { text: "", problem: null };
  if (file.truncated) return { text: "", problem: "truncated" };
  const text = decodeText(file.data, file.mimetype ?? null);
  return isBinaryText(text) ? { text: "", problem: "binary" } : { text, problem: null };
}
