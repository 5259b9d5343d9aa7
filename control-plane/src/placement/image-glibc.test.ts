// The glibc version an image's libc.so.6 states, and the floor the injected Node needs.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compareGlibc, glibcVersionIn } from "./image-glibc.js";
import { NODE_RUNTIME } from "./node-runtime.js";

const min = NODE_RUNTIME.minGlibc;
const meets = (bytes: Buffer, name = ""): boolean => {
  const v = glibcVersionIn(bytes, name);
  return !!v && compareGlibc(v, min) >= 0;
};

describe("glibc version of a libc.so.6", () => {
  it("reads this machine's own libc (Debian 12: 2.36) and finds it new enough", () => {
    expect(glibcVersionIn(readFileSync("/lib/x86_64-linux-gnu/libc.so.6"))).toEqual({ major: 2, minor: 36 });
    expect(meets(readFileSync("/lib/x86_64-linux-gnu/libc.so.6"))).toBe(true);
  });

  it("reads the banner glibc embeds", () => {
    const old = Buffer.from("\0\0GNU C Library (GNU libc) stable release version 2.17, by Roland McGrath et al.\n\0");
    expect(glibcVersionIn(old)).toEqual({ major: 2, minor: 17 });
    expect(meets(old)).toBe(false);
    expect(meets(Buffer.from("GNU C Library (Debian GLIBC 2.28-10+deb10u2) stable release version 2.28.\n"))).toBe(true);
    expect(meets(Buffer.from("GNU C Library (Ubuntu GLIBC 2.27-3ubuntu1.6) stable release version 2.27.\n"))).toBe(false);
  });

  it("falls back to a link target's name, then to the highest GLIBC_ symbol version", () => {
    expect(glibcVersionIn(Buffer.alloc(0), "libc-2.24.so")).toEqual({ major: 2, minor: 24 });
    expect(glibcVersionIn(Buffer.from("\0GLIBC_2.2.5\0GLIBC_2.17\0GLIBC_2.9\0GLIBC_PRIVATE\0"))).toEqual({ major: 2, minor: 17 });
    expect(meets(Buffer.from("\0GLIBC_2.27\0GLIBC_2.28\0"))).toBe(true);
  });

  it("finds no version in what is not glibc (musl, a stray file)", () => {
    expect(glibcVersionIn(Buffer.from("musl libc (x86_64)\nVersion 1.2.4\n"))).toBeUndefined();
    expect(meets(Buffer.from("hello"))).toBe(false);
  });

  it("orders versions by major, then minor", () => {
    expect(compareGlibc({ major: 2, minor: 28 }, { major: 2, minor: 9 })).toBeGreaterThan(0);
    expect(compareGlibc({ major: 3, minor: 0 }, { major: 2, minor: 40 })).toBeGreaterThan(0);
    expect(compareGlibc(min, min)).toBe(0);
  });
});
