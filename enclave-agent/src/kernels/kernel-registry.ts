// The eval kernels, as data: which interpreter each language needs.
export interface KernelSpec {
  language: "python" | "javascript";
  binary: string;
  install: string;
}

export const KERNELS: readonly KernelSpec[] = [
  { language: "python", binary: "python3", install: "apt-get install python3" },
  { language: "javascript", binary: "node", install: "apt-get install nodejs" },
];
