// One test mode for both sides of the wire: ENCLAVE_REWORD_ERRORS=1 rewrites every error message.
/**
 * With ENCLAVE_REWORD_ERRORS=1 every message is rewritten (a test mode): a test that runs the cases
 * callers branch on proves no branch reads the text.
 */
export function reworded(message: string): string {
  return process.env.ENCLAVE_REWORD_ERRORS === "1" ? `[reworded] ${[...message].reverse().join("")}` : message;
}
