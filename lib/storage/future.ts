import { DAY } from "../time/durations.js";

/**
 * A post dated further ahead than this is listed after every dated post and
 * does not make its blog or the river "recent": a typo'd year would
 * otherwise hold the top of the river and the widget for months or years.
 */
export const FUTURE_HORIZON_MS = DAY;

/** The latest date a post may have and still sort among the dated posts. */
export const futureHorizon = (now = Date.now()): Date => new Date(now + FUTURE_HORIZON_MS);
