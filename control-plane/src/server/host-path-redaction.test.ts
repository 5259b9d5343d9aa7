import { describe, expect, it } from "vitest";
import { DATA_FOLDER_MARK, redactHostPaths } from "./host-path-redaction.js";

describe("redactHostPaths", () => {
  it("names the data folder by its role wherever it occurs, and leaves other text alone", () => {
    expect(redactHostPaths("the folder /srv/enc/data/w/1 and /srv/enc/data", "/srv/enc/data")).toBe(
      `the folder ${DATA_FOLDER_MARK}/w/1 and ${DATA_FOLDER_MARK}`,
    );
    expect(redactHostPaths("/workspace/a.txt", "/srv/enc/data")).toBe("/workspace/a.txt");
    expect(redactHostPaths("/x", "/")).toBe("/x");
  });
});
