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
  return file && typeof file === "object" && Buffer.isBuffer((file as UploadedFile).data) ? (file as UploadedFile) : null;
}
