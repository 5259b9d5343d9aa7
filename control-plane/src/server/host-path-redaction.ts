// What a caller who may not learn host paths (a token tenant) is told in place of one: a message that
// quotes the data folder (an error from a workspace folder, an audit event's detail) names it by role.

export const DATA_FOLDER_MARK = "<data folder>";

/** `text` with every occurrence of the folder (and so of any path under it) named by its role. */
export function redactHostPaths(text: string, dataDir: string): string {
  if (!dataDir || dataDir === "/" || !text.includes(dataDir)) return text;
  return text.split(dataDir).join(DATA_FOLDER_MARK);
}
