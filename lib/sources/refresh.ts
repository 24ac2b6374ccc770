import type { MicrosubStore } from "../microsub/types.js";
import type { BlogrollOptions } from "../options.js";
import type { Source, Storage } from "../storage/types.js";
import { isAbort } from "../discovery/fetch-messages.js";
import { SOURCE_KINDS } from "./kinds.js";
import { SourceError, type ImportReport, type SourceContext } from "./types.js";

/** How one source refresh ended. */
export type SourceOutcome =
  | { status: "ok"; report: ImportReport | null; title: string | null }
  | { status: "error"; error: string }
  | { status: "aborted" };

export interface SourcesSummary {
  total: number;
  success: number;
  failed: number;
}

/**
 * Refreshes one source and records the outcome on it: `lastSyncAt`, `status`,
 * `lastError`, `lastImport` (kept as it was on a 304) and the HTTP validators.
 * A failure leaves the source's blogs exactly as they were.
 */
export async function refreshSource(source: Source, context: SourceContext): Promise<SourceOutcome> {
  const kind = SOURCE_KINDS[source.type];
  try {
    const { report, etag, lastModified, title } = await kind.refresh(source, context);
    const lastImport = report
      ? {
          added: report.added,
          updated: report.updated,
          unchanged: report.unchanged,
          skipped: report.skipped,
          missing: report.missing,
        }
      : source.lastImport;
    await context.storage.sources.update(source.id, {
      status: "ok",
      lastError: null,
      lastSyncAt: new Date(),
      lastImport,
      ...(etag !== undefined ? { etag } : {}),
      ...(lastModified !== undefined ? { lastModified } : {}),
    });
    return { status: "ok", report, title: title ?? null };
  } catch (error) {
    if (isAbort(error) || context.signal?.aborted) return { status: "aborted" };
    // Only our own messages reach the owner; anything unexpected is named generically.
    const message =
      error instanceof SourceError
        ? error.message
        : `Refresh failed: ${error instanceof Error ? error.message : String(error)}`;
    await context.storage.sources.update(source.id, { status: "error", lastError: message, lastSyncAt: new Date() });
    return { status: "error", error: message };
  }
}

/**
 * Refreshes every enabled source, one after another (two sources may list the
 * same blog), before a sync fetches the blogs. Microsub sources are skipped
 * while the Microsub plugin is absent, manual ones have nothing to refresh;
 * neither is counted. Stops early when `signal` aborts.
 */
export async function refreshSources(
  storage: Storage,
  options: BlogrollOptions,
  microsub: MicrosubStore | null,
  signal?: AbortSignal,
): Promise<SourcesSummary> {
  const summary: SourcesSummary = { total: 0, success: 0, failed: 0 };
  const context: SourceContext = { storage, options, microsub, signal };
  for (const source of await storage.sources.list()) {
    if (signal?.aborted) break;
    if (!source.enabled || source.type === "manual" || (source.type === "microsub" && !microsub)) continue;
    const outcome = await refreshSource(source, context);
    if (outcome.status === "aborted") break;
    summary.total++;
    if (outcome.status === "ok") summary.success++;
    else summary.failed++;
  }
  return summary;
}
