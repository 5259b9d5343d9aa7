// The eval kernels, as data: which interpreter each language needs.
export type KernelLanguage = "python" | "javascript";

export interface KernelSpec {
  language: KernelLanguage;
  binary: string;
  install: string;
}

export const KERNELS: readonly KernelSpec[] = [
  { language: "python", binary: "python3", install: "apt-get install python3" },
  { language: "javascript", binary: "node", install: "apt-get install nodejs" },
];

export function isKernelLanguage(value: string): value is KernelLanguage {
  return KERNELS.some((k) => k.language === value);
}
