/**
 * Lengths of time in milliseconds, the unit of Date, timers and every
 * duration the code stores or compares.
 */
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
export const WEEK = 7 * DAY;
