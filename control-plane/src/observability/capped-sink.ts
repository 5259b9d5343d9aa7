// Output a sandbox or an enclosure can write (a host agent's standard error, an enclosure relay's)
// reaches the host's disk and log only up to a budget: code there can write to those streams as
// fast as it likes, and must not fill the disk or drown the log.

/** Passes chunks on until `maxBytes` went through, then drops the rest, calling `onCap` once. */
export function cappedSink(write: (chunk: Buffer) => void, maxBytes: number, onCap: () => void): (chunk: Buffer) => void {
  let left = Math.max(0, maxBytes);
  let capped = false;
  return (chunk) => {
    if (capped) return;
    if (chunk.length <= left) {
      left -= chunk.length;
      write(chunk);
      return;
    }
    if (left > 0) write(chunk.subarray(0, left));
    left = 0;
    capped = true;
    onCap();
  };
}
