import type { Request, Response } from "express";
import type { BlogrollContext } from "../context.js";
import type { MicrosubChannel } from "../microsub/types.js";
import type { Source, Storage } from "../storage/types.js";
import { listFeedlandCategories } from "../sources/feedland.js";
import { previewImport, type ImportPreview } from "../sources/import.js";
import { LIST_KINDS } from "../sources/kinds.js";
import { nameOfTitle } from "../sources/naming.js";
import { readSourceNow } from "../sources/read-now.js";
import { SourceError } from "../sources/types.js";
import { idParam, notFound, renderForm, type FormErrors } from "./forms.js";
import { redirectWithNotice, type NoticeKey } from "./notices.js";
import { uploadedFile, uploadedText } from "./upload.js";
import { freshSourceState } from "../storage/fresh.js";
import { feedUrlKey } from "../url/normalise.js";
import {
  blankValues,
  NAME_MAX,
  NAMED_BY_DOCUMENT,
  provisionalName,
  FORM_TYPES,
  isFormType,
  readSourceForm,
  settingsOf,
  validateSourceForm,
  valuesOfSource,
  type FormSourceType,
  type SourceFormValues,
} from "./source-settings.js";

const PREVIEW_ROWS = 200;

/** Microsub channels for the picker, or null when the integration is not available. */
async function microsubChannels(context: BlogrollContext): Promise<MicrosubChannel[] | null> {
  const microsub = context.getMicrosub();
  if (!microsub) return null;
  try {
    return await microsub.listChannels();
  } catch (error) {
    context.log.error("listing Microsub channels failed", error);
    return null;
  }
}

/** The types offered on the "new source" page: Microsub only when its plugin is there. */
export function offeredTypes(microsubAvailable: boolean): FormSourceType[] {
  return FORM_TYPES.filter((type) => type !== "microsub" || microsubAvailable);
}

/** The id of a source that exists only in memory (never stored: storage ids are made on create). */
export const DRAFT_SOURCE_ID = "000000000000000000000000";

/** A source record that exists only in memory, for fetching and previewing before anything is saved. */
function draftSource(values: SourceFormValues): Source {
  const now = new Date();
  return {
    id: DRAFT_SOURCE_ID,
    type: values.type,
    name: values.name,
    enabled: values.enabled,
    settings: settingsOf(values),
    ...freshSourceState(),
    createdAt: now,
    updatedAt: now,
  };
}

/** Reads the list a source would import (fetching it if remote), then compares it with the blogroll. Writes nothing. */
async function previewSource(
  type: keyof typeof LIST_KINDS,
  values: SourceFormValues,
  context: BlogrollContext,
  storage: Storage,
): Promise<ImportPreview> {
  const draft = draftSource(values);
  // Someone's blogroll as typed, so an error names the address tried when the owner left out the scheme.
  const source = type === "blogroll" ? { ...draft, settings: { url: values.url } } : draft;
  const read = await LIST_KINDS[type].read(source, {
    storage,
    options: context.options,
    microsub: null,
    readOnly: true,
  });
  if (read.notModified) throw new SourceError("The server answered 304 Not Modified to a request without validators");
  return previewImport(storage, read.list.feeds, read.list.skipped);
}

/** The form field a source error belongs to. */
function fieldOfType(type: FormSourceType): string {
  return { opml_url: "url", opml_file: "xml", feedland: "screenName", microsub: "channelUid", blogroll: "url" }[type];
}

/** Imports a saved source right away, so the owner sees its blogs and counts; the notice to show, and the list's own title if it was read. */
async function importNow(
  context: BlogrollContext,
  source: Source,
  success: NoticeKey,
): Promise<{ notice: NoticeKey; title: string | null }> {
  const outcome = await readSourceNow(context, source);
  if (outcome?.status === "error") return { notice: "sourceImportFailed", title: null };
  return { notice: success, title: outcome?.status === "ok" ? outcome.title : null };
}

/**
 * Another source that reads the same list: an OPML address (compared as feed
 * addresses are: scheme, host case, default port, trailing slash) or the same
 * FeedLand account and category. Two such sources would import every blog twice.
 */
async function sameListSource(
  storage: Storage,
  values: SourceFormValues,
  existing: Source | null,
): Promise<Source | null> {
  if (values.type !== "opml_url" && values.type !== "feedland") return null;
  const identity = (settings: Record<string, unknown>) =>
    values.type === "opml_url"
      ? feedUrlKey(String(settings.url ?? ""))
      : [
          feedUrlKey(String(settings.instance ?? "")),
          String(settings.screenName ?? "").toLowerCase(),
          String(settings.category ?? ""),
        ].join("\n");
  const wanted = identity(settingsOf(values));
  const sources = await storage.sources.list();
  return (
    sources.find(
      (source) => source.id !== existing?.id && source.type === values.type && identity(source.settings) === wanted,
    ) ?? null
  );
}

/** Select options with the current value marked `selected`, as the host's select macro expects. */
function selectItems(items: Array<{ value: string; text: string }>, current: string) {
  return items.map((item) => ({ ...item, selected: item.value === current }));
}

interface FormPage {
  values: SourceFormValues;
  source: Source | null;
  errors?: FormErrors;
  preview?: ImportPreview | null;
  feedlandCategories?: string[] | null;
}

async function renderSourceForm(response: Response, context: BlogrollContext, page: FormPage): Promise<void> {
  const __ = response.locals.__;
  const mountPath = context.options.mountPath;
  const typeLabel = __(`blogroll.sources.types.${page.values.type}`);
  const channels = page.values.type === "microsub" ? await microsubChannels(context) : null;
  const categories = page.feedlandCategories ?? (page.values.category ? [page.values.category] : []);
  renderForm(
    response,
    "blogroll-source-form",
    {
      title: page.source
        ? __("blogroll.sources.edit.title", { name: page.source.name })
        : __("blogroll.sources.new.title", { type: typeLabel }),
      parent: { text: __("blogroll.sources.title"), href: `${mountPath}/sources` },
      values: page.values,
      source: page.source,
      typeLabel,
      nameOptional: !page.source && NAMED_BY_DOCUMENT.includes(page.values.type),
      nameMax: NAME_MAX,
      formAction: page.source ? `${mountPath}/sources/${page.source.id}` : `${mountPath}/sources`,
      categoryItems: selectItems(
        [
          { value: "", text: __("blogroll.sources.form.allCategories") },
          ...categories.map((name) => ({ value: name, text: name })),
        ],
        page.values.category,
      ),
      categoriesLoaded: Array.isArray(page.feedlandCategories),
      channelItems: channels
        ? selectItems(
            [
              { value: "", text: __("blogroll.sources.form.allChannels") },
              ...channels.map((channel) => ({ value: channel.uid, text: channel.name })),
            ],
            page.values.channelUid,
          )
        : null,
      preview: page.preview ?? null,
      previewRows: page.preview ? page.preview.entries.slice(0, PREVIEW_ROWS) : [],
    },
    page.errors,
  );
}

/** The type picker; `error` when a submitted type was missing or not offered. */
function renderTypeChooser(
  response: Response,
  context: BlogrollContext,
  types: FormSourceType[],
  error: string | null,
) {
  const __ = response.locals.__;
  renderForm(
    response,
    "blogroll-source-type",
    {
      title: __("blogroll.sources.new.chooseTitle"),
      parent: { text: __("blogroll.sources.title"), href: `${context.options.mountPath}/sources` },
      typeItems: types.map((value, index) => ({
        value,
        label: __(`blogroll.sources.types.${value}`),
        hint: __(`blogroll.sources.typeHints.${value}`),
        checked: index === 0,
      })),
    },
    error ? { type: error } : {},
  );
}

/** GET /sources/new: a type picker, then the form of the chosen type. */
export function newSourceController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const types = offeredTypes(context.getMicrosub() !== null);
    const type = request.query.type;
    if (isFormType(type) && types.includes(type)) {
      await renderSourceForm(response, context, { values: blankValues(type), source: null });
      return;
    }
    renderTypeChooser(
      response,
      context,
      types,
      type === undefined ? null : response.locals.__("blogroll.sources.errors.typeRequired"),
    );
  };
}

/**
 * Handles the source form's three buttons: `preview` (what an import would
 * do, nothing written), `categories` (FeedLand: fill the category picker
 * from the instance) and `save` (validate, store, import now).
 */
async function handleSourceForm(
  context: BlogrollContext,
  request: Request,
  response: Response,
  existing: Source | null,
  type: FormSourceType,
) {
  const __ = response.locals.__;
  const storage = await context.getStorage();
  const file = uploadedFile(request, "opmlFile");
  const upload = uploadedText(file);
  const values = readSourceForm(type, request.body, upload.text);
  if (existing && type === "opml_file" && !values.xml) values.xml = existing.settings.xml ?? "";
  const channels = type === "microsub" ? await microsubChannels(context) : null;
  const errors = await validateSourceForm(values, __, {
    maxBytes: context.options.maxBodySize,
    channelUids: channels?.map((channel) => channel.uid) ?? null,
    uploadError: upload.problem,
    nameOptional: !existing && NAMED_BY_DOCUMENT.includes(type),
  });
  const action = request.body?.action;

  if (action === "categories" && type === "feedland") {
    delete errors.name; // loading categories needs only the instance and the screen name
    if (Object.keys(errors).length > 0)
      return renderSourceForm(response, context, { values, source: existing, errors });
    try {
      const categories = await listFeedlandCategories(values.instance, values.screenName, context.options);
      return renderSourceForm(response, context, { values, source: existing, feedlandCategories: categories });
    } catch (error) {
      const message = error instanceof SourceError ? error.message : __("blogroll.sources.errors.unreachable");
      return renderSourceForm(response, context, {
        values,
        source: existing,
        errors: { screenName: __("blogroll.sources.errors.categoriesFailed", { reason: message }) },
      });
    }
  }

  if (action !== "preview") {
    const twin = await sameListSource(storage, values, existing);
    if (twin)
      errors[type === "feedland" ? "screenName" : "url"] = __("blogroll.sources.errors.duplicate", { name: twin.name });
  }
  if (Object.keys(errors).length > 0) return renderSourceForm(response, context, { values, source: existing, errors });

  if (action === "preview" && type !== "microsub") {
    try {
      const preview = await previewSource(type, values, context, storage);
      return renderSourceForm(response, context, { values, source: existing, preview });
    } catch (error) {
      if (!(error instanceof SourceError)) throw error;
      return renderSourceForm(response, context, {
        values,
        source: existing,
        errors: { [fieldOfType(type)]: error.message },
      });
    }
  }

  const mountPath = context.options.mountPath;
  const settings = settingsOf(values);
  if (!existing) {
    const name = values.name || provisionalName(values, file?.name, __(`blogroll.sources.types.${type}`));
    const source = await storage.sources.create({ type, name, enabled: values.enabled, settings });
    const imported = await importNow(context, source, "sourceCreated");
    // Left unnamed: the document names it, as a feed reader names a subscription by its feed.
    const title = values.name ? null : nameOfTitle(imported.title, NAME_MAX);
    if (title) await storage.sources.update(source.id, { name: title });
    return redirectWithNotice(response, `${mountPath}/sources`, imported.notice);
  }
  const settingsChanged = JSON.stringify(settings) !== JSON.stringify(existing.settings);
  // New settings mean a different document: the old validators must not turn the next fetch into a 304.
  const updated = await storage.sources.update(existing.id, {
    name: values.name,
    enabled: values.enabled,
    settings,
    ...(settingsChanged ? { etag: null, lastModified: null } : {}),
  });
  if (!updated) return notFound(response);
  const notice = settingsChanged ? (await importNow(context, updated, "sourceSaved")).notice : "sourceSaved";
  redirectWithNotice(response, `${mountPath}/sources`, notice);
}

/** POST /sources: create (or preview, or load FeedLand categories). */
export function createSourceController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const type = request.body?.type;
    const types = offeredTypes(context.getMicrosub() !== null);
    if (!isFormType(type) || !types.includes(type)) {
      return renderTypeChooser(response, context, types, response.locals.__("blogroll.sources.errors.typeRequired"));
    }
    await handleSourceForm(context, request, response, null, type);
  };
}

/** Loads the `:id` source if it exists and has an admin form (manual sources have none). */
async function editableSource(
  context: BlogrollContext,
  request: Request,
): Promise<(Source & { type: FormSourceType }) | null> {
  const id = idParam(request.params.id);
  if (!id) return null;
  const source = await (await context.getStorage()).sources.get(id);
  return source && isFormType(source.type) ? (source as Source & { type: FormSourceType }) : null;
}

/** GET /sources/:id/edit */
export function editSourceController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const source = await editableSource(context, request);
    if (!source) return notFound(response);
    await renderSourceForm(response, context, { values: valuesOfSource(source), source });
  };
}

/** POST /sources/:id: update (or preview, or load FeedLand categories). The type cannot change. */
export function updateSourceController(context: BlogrollContext) {
  return async (request: Request, response: Response) => {
    const source = await editableSource(context, request);
    if (!source) return notFound(response);
    await handleSourceForm(context, request, response, source, source.type);
  };
}
