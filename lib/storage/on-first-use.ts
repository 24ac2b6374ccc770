import { describeStorageChoice, openStorage, type StorageChoice } from "./open.js";
import type { Storage } from "./types.js";

/**
 * Storage opened on first use, not at start-up: inside Indiekit the host may
 * connect its database after the plugin's init, and the choice is read then.
 * A failed opening is forgotten, so the next request tries again.
 */
export class StorageOnFirstUse {
  private opening: Promise<Storage> | null = null;

  constructor(private readonly choice: () => StorageChoice) {}

  get(): Promise<Storage> {
    if (!this.opening) {
      const opening = openStorage(this.choice());
      this.opening = opening;
      opening.catch(() => {
        if (this.opening === opening) this.opening = null;
      });
    }
    return this.opening;
  }

  /** Where storage lives (or will), for start-up messages. */
  describe(): string {
    return describeStorageChoice(this.choice());
  }

  /** Closes the storage opened so far, if any; the next get() opens it again. */
  async close(): Promise<void> {
    const opening = this.opening;
    this.opening = null;
    if (opening) await (await opening.catch(() => null))?.close();
  }
}
